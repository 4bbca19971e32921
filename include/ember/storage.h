// Storage: one block of memory that tensors view. Views share a Storage; its
// version counter is bumped by every in-place write through any of them
// (see Note [Versions] in lib/core/storage.cpp).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "ember/device.h"
#include "ember/intrusive_ptr.h"

namespace ember {

// Frees a storage's memory; ctx is whatever the owner needs (an allocator, a numpy array).
using StorageDeleter = void (*)(void* ctx, void* data);

class Storage : public RefCounted {
 public:
  Storage(void* data, size_t nbytes, Device device, StorageDeleter deleter, void* ctx)
      : data_(data), nbytes_(nbytes), device_(device), deleter_(deleter), ctx_(ctx) {}
  ~Storage() override {
    if (deleter_) deleter_(ctx_, data_);
  }

  // A fresh block from the device's caching allocator.
  static IntrusivePtr<Storage> allocate(size_t nbytes, Device device);

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }
  // Trades memory blocks with other, keeping this storage's identity and version: how
  // resize_ grows a storage that other tensors view too (they see the new block).
  void swap_memory(Storage& other) {
    std::swap(data_, other.data_);
    std::swap(nbytes_, other.nbytes_);
    std::swap(device_, other.device_);
    std::swap(deleter_, other.deleter_);
    std::swap(ctx_, other.ctx_);
  }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  StorageDeleter deleter_;
  void* ctx_;
  std::atomic<uint64_t> version_{0};
};

}  // namespace ember
