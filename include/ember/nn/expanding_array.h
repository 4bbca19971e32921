// ExpandingArray<D>: a size option given as one number or as D numbers
// (torch::ExpandingArray): Conv2dOptions(1, 16, 3) means kernel_size {3, 3}.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/ops/linalg.h"

namespace ember {

template <size_t D>
class ExpandingArray {
 public:
  ExpandingArray(int64_t value) : values_(D, value) {}  // NOLINT: 3 means {3, 3}
  ExpandingArray(std::initializer_list<int64_t> values) : ExpandingArray(IntList(values)) {}
  ExpandingArray(IntList values) : values_(std::move(values)) {  // NOLINT
    EMBER_CHECK_VALUE(values_.size() == D, "expected ", D, " values, got ", values_.size());
  }
  const IntList& operator*() const { return values_; }
  const IntList* operator->() const { return &values_; }
  operator const IntList&() const { return values_; }  // NOLINT
  bool operator==(const ExpandingArray& other) const = default;

 private:
  IntList values_;
};

// "[3, 3]", as torch prints them.
template <size_t D>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D>& array) {
  stream << "[";
  for (size_t i = 0; i < D; ++i) stream << (i ? ", " : "") << (*array)[i];
  return stream << "]";
}

// A convolution's padding: sizes (one number or D) or "valid" / "same".
template <size_t D>
class ConvPaddingOption {
 public:
  ConvPaddingOption(int64_t value) : sizes_(value) {}  // NOLINT
  ConvPaddingOption(std::initializer_list<int64_t> values) : sizes_(values) {}
  ConvPaddingOption(IntList values) : sizes_(std::move(values)) {}  // NOLINT
  ConvPaddingOption(std::string mode) : sizes_(0), mode_(std::move(mode)) {  // NOLINT
    EMBER_CHECK_VALUE(mode_ == "valid" || mode_ == "same",
                      "Invalid padding string '", mode_, "', should be one of {'valid', 'same'}");
  }
  ConvPaddingOption(const char* mode) : ConvPaddingOption(std::string(mode)) {}  // NOLINT
  // What ember::conv1d / conv2d take.
  ConvPadding value() const { return mode_.empty() ? ConvPadding(*sizes_) : ConvPadding(mode_); }
  bool is_zero() const { return mode_.empty() && sizes_ == ExpandingArray<D>(0); }
  friend std::ostream& operator<<(std::ostream& stream, const ConvPaddingOption& p) {
    if (!p.mode_.empty()) return stream << "'" << p.mode_ << "'";
    return stream << p.sizes_;
  }

 private:
  ExpandingArray<D> sizes_;
  std::string mode_;
};

}  // namespace ember
