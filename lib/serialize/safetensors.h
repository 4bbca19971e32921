// The safetensors format (https://github.com/huggingface/safetensors): how ember
// reads and writes it. A file is
//   8 bytes      N, the header's length, little-endian unsigned
//   N bytes      a JSON object {name: {"dtype": "F32", "shape": [2, 3],
//                "data_offsets": [begin, end]}, ..., "__metadata__": {str: str}},
//                maybe padded with spaces
//   the rest     the data section: each tensor's bytes, row-major, little-endian,
//                at [begin, end) relative to the start of the section.
// Files come from anywhere, so the reader trusts nothing: every length, offset,
// dtype and shape is checked before a byte of tensor memory is allocated, and the
// tensors must tile the data section exactly (no overlaps, no holes, nothing
// after the last), as the format requires. Every problem is an ember::Error.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::serialize {

using Metadata = std::map<std::string, std::string>;
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// Throws the reader's error: "cannot load 'x.safetensors' as safetensors: <what>".
template <typename... Args>
[[noreturn]] void bad_file(const std::string& source, const Args&... what) {
  throw Error(detail::str("cannot load ", source, " as safetensors: ", what...));
}

// The largest header the reader accepts (the reference implementation's limit).
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// The most dims a tensor of a file may have.
constexpr size_t kMaxDims = 64;

// "F32" <-> kFloat32. Names ember has no dtype for (U16, F8_E4M3, ...) give nullopt.
const char* safetensors_dtype_name(DType dtype);
std::optional<DType> dtype_from_safetensors_name(const std::string& name);

// One tensor of a header: its bytes are [begin, end) of the data section.
struct TensorEntry {
  std::string name;
  DType dtype;
  DimVector shape;
  uint64_t begin;
  uint64_t end;
};
struct Header {
  std::vector<TensorEntry> tensors;  // in the order of the JSON text
  Metadata metadata;
};

// Parses and checks the header's JSON text against a data section of
// data_bytes bytes. `source` names the file in error messages.
Header parse_header(std::string_view json, uint64_t data_bytes, const std::string& source);

// Serializes a header: compact JSON padded with spaces so that the data section
// starts 8-byte aligned. Entries' offsets must already be set.
std::string format_header(const std::vector<TensorEntry>& tensors, const Metadata& metadata);

// Where a reader's bytes come from: an open file or a buffer in memory.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Reads exactly n bytes at offset (offset + n <= size()) or throws.
  virtual void read_at(uint64_t offset, void* dst, size_t n) const = 0;
  const std::string& name() const { return name_; }

 protected:
  explicit ByteSource(std::string name) : name_(std::move(name)) {}
  std::string name_;
};

class FileSource : public ByteSource {
 public:
  // Opens path for reading; throws ember::Error if it is missing or not a regular file.
  explicit FileSource(const std::string& path);
  // Reads an already open file descriptor (borrowed: not closed here).
  FileSource(int fd, std::string name);
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource() override;
  uint64_t size() const override { return size_; }
  void read_at(uint64_t offset, void* dst, size_t n) const override;

 private:
  void init_size();
  int fd_;
  bool owns_fd_;
  uint64_t size_ = 0;
};

class MemorySource : public ByteSource {
 public:
  MemorySource(std::string_view bytes, std::string name)
      : ByteSource(std::move(name)), bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  void read_at(uint64_t offset, void* dst, size_t n) const override;

 private:
  std::string_view bytes_;
};

// Reads and checks the header; *data_start is set to where the data section begins.
Header read_header(const ByteSource& source, uint64_t* data_start = nullptr);

struct Contents {
  NamedTensors tensors;  // in the header's order, each owning its memory
  Metadata metadata;
};
Contents read_safetensors(const ByteSource& source);

// Receives the bytes of a file being written, in order.
using ByteSink = std::function<void(const void* data, size_t n)>;
// Writes tensors (any layout or device; saved as contiguous CPU copies) and
// metadata. Names must be unique and not "__metadata__".
void write_safetensors(const NamedTensors& tensors, const Metadata& metadata, const ByteSink& sink);
// The same into a file, atomically (atomic_file.h).
void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const Metadata& metadata);

// The __metadata__ key under which ember.save (Python) keeps the structure of
// the saved object as JSON, and the version of that JSON's layout.
constexpr const char* kEmberMetadataKey = "ember";
constexpr int kEmberFormatVersion = 1;

}  // namespace ember::serialize
