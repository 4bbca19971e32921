// SmallVector: a vector that keeps its first N elements inline, so the shapes,
// strides and argument lists of an op call cost no heap allocation.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <utility>

namespace ember {

template <typename T, size_t N>
class SmallVector {
 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  SmallVector(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
  explicit SmallVector(size_t n, const T& value = T()) { resize(n, value); }
  template <typename It, typename = decltype(*std::declval<It>())>
  SmallVector(It first, It last) { assign(first, last); }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { move_from(std::move(o)); }
  ~SmallVector() { release(); }

  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) { clear(); assign(o.begin(), o.end()); }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) { release(); move_from(std::move(o)); }
    return *this;
  }

  template <typename It>
  void assign(It first, It last) {
    clear();
    reserve(static_cast<size_t>(std::distance(first, last)));
    for (; first != last; ++first) new (data_ + size_++) T(*first);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& front() { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    size_t cap = std::max(n, capacity_ * 2);
    T* fresh = static_cast<T*>(std::malloc(cap * sizeof(T)));
    if (!fresh) throw std::bad_alloc();
    for (size_t i = 0; i < size_; ++i) {
      new (fresh + i) T(std::move(data_[i]));
      data_[i].~T();
    }
    if (data_ != inline_data()) std::free(data_);
    data_ = fresh;
    capacity_ = cap;
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) {
      T tmp(std::forward<Args>(args)...);  // args may alias our storage
      reserve(size_ + 1);
      return *new (data_ + size_++) T(std::move(tmp));
    }
    return *new (data_ + size_++) T(std::forward<Args>(args)...);
  }
  void pop_back() { data_[--size_].~T(); }
  void resize(size_t n, const T& value = T()) {
    reserve(n);
    while (size_ < n) new (data_ + size_++) T(value);
    while (size_ > n) data_[--size_].~T();
  }
  void clear() { resize(0); }
  T* insert(T* pos, const T& v) {
    size_t idx = pos - data_;
    emplace_back(v);
    std::rotate(data_ + idx, data_ + size_ - 1, data_ + size_);
    return data_ + idx;
  }
  T* erase(T* pos) {
    std::move(pos + 1, end(), pos);
    pop_back();
    return pos;
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const SmallVector& a, const SmallVector& b) { return !(a == b); }

 private:
  T* inline_data() { return reinterpret_cast<T*>(&inline_); }
  void release() {
    clear();
    if (data_ != inline_data()) std::free(data_);
    data_ = inline_data();
    capacity_ = N;
  }
  void move_from(SmallVector&& o) {
    if (o.data_ != o.inline_data()) {  // steal the heap buffer
      data_ = o.data_;
      size_ = o.size_;
      capacity_ = o.capacity_;
      o.data_ = o.inline_data();
      o.size_ = 0;
      o.capacity_ = N;
    } else {
      for (size_t i = 0; i < o.size_; ++i) new (data_ + size_++) T(std::move(o.data_[i]));
      o.clear();
    }
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* data_ = inline_data();
  size_t size_ = 0;
  size_t capacity_ = N;
};

// Shapes and strides: six dims inline covers nearly every real tensor.
using DimVector = SmallVector<int64_t, 6>;

}  // namespace ember
