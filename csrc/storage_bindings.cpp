// What ember.UntypedStorage / TypedStorage (python/ember/_storage.py) need from a
// tensor's Storage: its size, address and identity, tensors of any dtype and geometry
// over it (how a storage is read, written and given to Tensor.set_), and the few ways
// of making or changing a Storage that no op covers: resizing it in place, moving it
// into shared memory, mapping a file (ember.from_file) and wrapping a Python buffer
// (ember.frombuffer).
//
// Storage objects in Python hold an "anchor": any tensor whose TensorImpl points at
// the Storage. Every function here takes that anchor and works on its whole Storage.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "bindings.h"

namespace ember::python {

namespace {

Storage& storage_of(const Tensor& anchor) {
  EMBER_CHECK(anchor.defined(), "storage: the tensor is undefined");
  return *anchor.impl()->storage();
}

// A tensor over `storage` with this dtype and geometry, starting byte_offset bytes in;
// it has no autograd history (a storage is plain memory, as in PyTorch).
Tensor view_of_storage(const IntrusivePtr<Storage>& storage, DType dtype, int64_t byte_offset,
                       const IntList& sizes, const IntList& strides) {
  const int64_t item = static_cast<int64_t>(itemsize(dtype));
  EMBER_CHECK(sizes.size() == strides.size(), "storage view: ", sizes.size(), " sizes but ",
              strides.size(), " strides");
  EMBER_CHECK(byte_offset >= 0, "storage view: negative byte offset ", byte_offset);
  EMBER_CHECK(byte_offset % item == 0, "storage view: byte offset ", byte_offset,
              " is not a multiple of the element size ", item, " of ", dtype_name(dtype));
  int64_t last = 0;
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    EMBER_CHECK(sizes[d] >= 0, "storage view: negative size ", sizes[d]);
    EMBER_CHECK(strides[d] >= 0, "storage view: negative stride ", strides[d]);
    if (sizes[d] == 0) empty = true;
    else last += (sizes[d] - 1) * strides[d];
  }
  const int64_t nbytes = static_cast<int64_t>(storage->nbytes());
  if (!empty) {
    const int64_t end = byte_offset + (last + 1) * item;
    EMBER_CHECK(end <= nbytes, "storage view: a view of ", dtype_name(dtype), " elements reaching byte ",
                end, " does not fit a storage of ", nbytes, " bytes");
  }
  return Tensor(make_intrusive<TensorImpl>(storage, byte_offset / item,
                                           DimVector(sizes.begin(), sizes.end()),
                                           DimVector(strides.begin(), strides.end()), dtype));
}

// A fresh block of nbytes on the storage's device with the first bytes of the old one,
// swapped into the storage so that every tensor viewing it sees the new memory.
void resize_storage(Storage& storage, const IntrusivePtr<Storage>& owner, int64_t nbytes) {
  Tensor fresh = empty(IntList{nbytes}, TensorOptions(kUInt8).device(storage.device()));
  const int64_t keep = std::min<int64_t>(nbytes, static_cast<int64_t>(storage.nbytes()));
  if (keep > 0) {
    Tensor old_bytes = view_of_storage(owner, kUInt8, 0, IntList{keep}, IntList{1});
    narrow(fresh, 0, 0, keep).copy_(old_bytes);
  }
  storage.swap_memory(*fresh.impl()->storage());
  storage.bump_version();
}

// Blocks of POSIX shared memory (MAP_SHARED) made by share_memory_ or from_file with
// shared=True: is_shared() asks this set. ctx holds the mapped length.
std::mutex shared_mutex;
std::unordered_set<void*>& shared_blocks() {
  static auto* blocks = new std::unordered_set<void*>();  // leaked: used at exit
  return *blocks;
}

// The memfd behind each block of share_memory_ (or received from another process by
// _storage_from_fd): kept open while the block lives, so that the block can be sent to
// another process (ember.multiprocessing passes the descriptor), closed with the mapping.
std::unordered_map<void*, int>& shared_fds() {
  static auto* fds = new std::unordered_map<void*, int>();  // leaked: used at exit
  return *fds;
}

// The file each shared mapping of from_file writes to (UntypedStorage.filename).
std::unordered_map<void*, std::string>& mapped_files() {
  static auto* files = new std::unordered_map<void*, std::string>();  // leaked: used at exit
  return *files;
}

void unmap_shared(void* ctx, void* data) {
  int fd = -1;
  {
    std::lock_guard<std::mutex> lock(shared_mutex);
    shared_blocks().erase(data);
    mapped_files().erase(data);
    auto found = shared_fds().find(data);
    if (found != shared_fds().end()) {
      fd = found->second;
      shared_fds().erase(found);
    }
  }
  munmap(data, reinterpret_cast<size_t>(ctx));
  if (fd >= 0) close(fd);
}

// length bytes of fd mapped shared, registered as a shared block that owns fd.
void* map_shared_fd(int fd, size_t length) {
  void* data = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (data == MAP_FAILED) return data;
  std::lock_guard<std::mutex> lock(shared_mutex);
  shared_blocks().insert(data);
  shared_fds()[data] = fd;
  return data;
}

void unmap_private(void* ctx, void* data) { munmap(data, reinterpret_cast<size_t>(ctx)); }

bool is_shared_block(void* data) {
  std::lock_guard<std::mutex> lock(shared_mutex);
  return shared_blocks().count(data) > 0;
}

void share_memory(const Tensor& anchor) {
  Storage& storage = storage_of(anchor);
  if (!storage.device().is_cpu() || is_shared_block(storage.data())) return;
  const size_t nbytes = storage.nbytes();
  const size_t length = std::max<size_t>(nbytes, 1);  // mmap refuses 0 bytes
  // A memfd (not an anonymous mapping), so that a process started later, by spawn or
  // through a Queue, can map the same memory from the descriptor. Out of descriptors
  // (EMFILE), an anonymous shared mapping: shared with fork children only.
  int fd = memfd_create("ember_shared_storage", MFD_CLOEXEC);
  void* data = MAP_FAILED;
  if (fd >= 0 && ftruncate(fd, static_cast<off_t>(length)) == 0) {
    data = map_shared_fd(fd, length);
  }
  if (data == MAP_FAILED) {
    if (fd >= 0) close(fd);
    data = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EMBER_CHECK(data != MAP_FAILED, "share_memory_: cannot map ", nbytes, " bytes of shared memory: ",
                std::strerror(errno));
    std::lock_guard<std::mutex> lock(shared_mutex);
    shared_blocks().insert(data);
  }
  if (nbytes > 0) std::memcpy(data, storage.data(), nbytes);
  // The old block goes to `old`, whose deleter frees it when it dies here.
  auto old = make_intrusive<Storage>(data, nbytes, storage.device(), &unmap_shared,
                                     reinterpret_cast<void*>(length));
  storage.swap_memory(*old);
}

// The shared block that another process sent as a descriptor (ember.multiprocessing):
// nbytes mapped from a duplicate of fd, which the block owns; the caller keeps fd.
Tensor map_shared_from_fd(int fd, int64_t nbytes) {
  EMBER_CHECK(nbytes >= 0, "_storage_from_fd: negative size of ", nbytes, " bytes");
  int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  EMBER_CHECK(own >= 0, "_storage_from_fd: cannot duplicate descriptor ", fd, ": ", std::strerror(errno));
  const size_t length = std::max<int64_t>(nbytes, 1);
  void* data = map_shared_fd(own, length);
  if (data == MAP_FAILED) {
    int err = errno;
    close(own);
    EMBER_CHECK(false, "_storage_from_fd: cannot map ", nbytes, " bytes: ", std::strerror(err));
  }
  auto storage = make_intrusive<Storage>(data, static_cast<size_t>(nbytes), kCPU, &unmap_shared,
                                         reinterpret_cast<void*>(length));
  return view_of_storage(storage, kUInt8, 0, IntList{nbytes}, IntList{1});
}

// ember.from_file: nbytes of filename mapped into memory. shared: writes reach the file
// (which is grown to nbytes if shorter, as torch does); else a private copy-on-write map
// of a file that must hold nbytes.
Tensor map_file(const std::string& filename, bool shared, int64_t nbytes) {
  EMBER_CHECK(nbytes >= 0, "from_file: negative size of ", nbytes, " bytes");
  int fd = shared ? open(filename.c_str(), O_RDWR | O_CREAT, 0644) : open(filename.c_str(), O_RDONLY);
  if (fd < 0)
    throw Error(detail::str("unable to open file <", filename, "> in ",
                            shared ? "read-write" : "read-only", " mode: ", std::strerror(errno),
                            " (", errno, ")"));
  struct stat info {};
  if (fstat(fd, &info) != 0) {
    int err = errno;
    close(fd);
    throw Error(detail::str("unable to stat file <", filename, ">: ", std::strerror(err)));
  }
  if (info.st_size < nbytes) {
    if (!shared) {
      close(fd);
      throw Error(detail::str("file <", filename, "> size <", info.st_size,
                              "> is smaller than the required mapping size <", nbytes, ">"));
    }
    if (ftruncate(fd, nbytes) != 0) {
      int err = errno;
      close(fd);
      throw Error(detail::str("unable to resize file <", filename, "> to the right size: ",
                              std::strerror(err)));
    }
  }
  const size_t length = std::max<int64_t>(nbytes, 1);
  void* data = nbytes == 0 ? mmap(nullptr, 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                           : mmap(nullptr, length, PROT_READ | PROT_WRITE,
                                  shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
  int err = errno;
  close(fd);  // the mapping stays valid without the descriptor
  EMBER_CHECK(data != MAP_FAILED, "unable to mmap ", nbytes, " bytes from file <", filename,
              ">: ", std::strerror(err));
  StorageDeleter deleter = &unmap_private;
  if (shared && nbytes > 0) {
    std::lock_guard<std::mutex> lock(shared_mutex);
    shared_blocks().insert(data);
    mapped_files()[data] = filename;
    deleter = &unmap_shared;
  }
  auto storage = make_intrusive<Storage>(data, static_cast<size_t>(nbytes), kCPU, deleter,
                                         reinterpret_cast<void*>(length));
  return view_of_storage(storage, kUInt8, 0, IntList{nbytes}, IntList{1});
}

// ember.frombuffer: the bytes [offset, offset + nbytes) of a Python buffer, not copied;
// the storage holds the buffer (and so the object) until it dies.
void release_buffer(void* ctx, void*) {
  auto* view = static_cast<Py_buffer*>(ctx);
  if (Py_IsInitialized()) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyBuffer_Release(view);
    PyGILState_Release(gil);
  }
  delete view;
}

// (bytes, writable): a uint8 tensor over bytes [offset, offset + nbytes) of obj's buffer
// (nbytes < 0: to its end). The storage starts at offset, as torch.frombuffer's does.
py::tuple bytes_of_buffer(py::handle obj, int64_t offset, int64_t nbytes) {
  auto* view = new Py_buffer();
  bool writable = true;
  if (PyObject_GetBuffer(obj.ptr(), view, PyBUF_WRITABLE) != 0) {
    PyErr_Clear();
    writable = false;
    if (PyObject_GetBuffer(obj.ptr(), view, PyBUF_SIMPLE) != 0) {
      PyErr_Clear();
      delete view;
      throw ValueError("object does not implement Python buffer protocol.");
    }
  }
  const int64_t length = static_cast<int64_t>(view->len);
  if (nbytes < 0) nbytes = length - offset;
  if (offset < 0 || nbytes < 0 || offset + nbytes > length) {
    PyBuffer_Release(view);
    delete view;
    throw ValueError(detail::str("frombuffer: bytes [", offset, ", ", offset + nbytes,
                                 ") are not inside a buffer of ", length, " bytes"));
  }
  auto storage = make_intrusive<Storage>(static_cast<char*>(view->buf) + offset,
                                         static_cast<size_t>(nbytes), kCPU, &release_buffer, view);
  return py::make_tuple(view_of_storage(storage, kUInt8, 0, IntList{nbytes}, IntList{1}), writable);
}

}  // namespace

// Tensor.view(dtype): the same bytes read as another dtype (torch's rules). With the
// same element size the geometry is kept; with another, the last dim (stride 1) is
// rescaled, and every other stride and the offset must stay whole numbers of elements.
// Like a storage view it has no autograd history (torch's is not differentiable either).
Tensor view_as_dtype(const Tensor& t, DType dtype) {
  const int64_t from = t.element_size(), to = static_cast<int64_t>(itemsize(dtype));
  IntList sizes(t.sizes().begin(), t.sizes().end()), strides(t.strides().begin(), t.strides().end());
  if (from != to) {
    const std::string what = detail::str(" to view ", dtype_name(t.dtype()), " as ", dtype_name(dtype),
                                         " (different element sizes)");
    EMBER_CHECK(t.dim() > 0, "self.dim() cannot be 0", what);
    EMBER_CHECK(t.stride(-1) == 1, "self.stride(-1) must be 1", what, ", but got ", t.stride(-1));
    if (to > from) {
      const int64_t ratio = to / from;
      EMBER_CHECK(t.size(-1) % ratio == 0, "self.size(-1) must be divisible by ", ratio, what,
                  ", but got ", t.size(-1));
      EMBER_CHECK(t.storage_offset() % ratio == 0, "self.storage_offset() must be divisible by ", ratio,
                  what, ", but got ", t.storage_offset());
      for (int64_t d = 0; d + 1 < t.dim(); ++d)
        EMBER_CHECK(t.stride(d) % ratio == 0, "self.stride(", d, ") must be divisible by ", ratio, what,
                    ", but got ", t.stride(d));
      sizes.back() /= ratio;
      for (int64_t d = 0; d + 1 < t.dim(); ++d) strides[d] /= ratio;
    } else {
      const int64_t ratio = from / to;
      sizes.back() *= ratio;
      for (int64_t d = 0; d + 1 < t.dim(); ++d) strides[d] *= ratio;
    }
  }
  return view_of_storage(t.impl()->storage(), dtype, t.storage_offset() * from, sizes, strides);
}

void bind_storage(py::module_& m) {
  m.def("_storage_nbytes", [](const Tensor& t) { return static_cast<int64_t>(storage_of(t).nbytes()); });
  m.def("_storage_data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(storage_of(t).data()); });
  // The Storage's identity (torch's storage._cdata): equal for tensors that share memory.
  m.def("_storage_key", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.impl()->storage().get()); });
  // How many tensors (and saved tensors) hold the Storage.
  m.def("_storage_use_count", [](const Tensor& t) { return t.impl()->storage().use_count(); });
  m.def("_storage_view", [](const Tensor& t, DType dtype, int64_t byte_offset, const IntList& sizes,
                            const IntList& strides) {
    return view_of_storage(t.impl()->storage(), dtype, byte_offset, sizes, strides);
  }, py::arg("anchor"), py::arg("dtype"), py::arg("byte_offset"), py::arg("size"), py::arg("stride"));
  m.def("_storage_resize_", [](const Tensor& t, int64_t nbytes) {
    EMBER_CHECK(nbytes >= 0, "resize_: negative size ", nbytes);
    resize_storage(storage_of(t), t.impl()->storage(), nbytes);
  }, py::arg("anchor"), py::arg("nbytes"));
  // self takes source's storage, dtype and geometry (Tensor.set_), keeping its identity.
  m.def("_tensor_set_", [](Tensor& self, const Tensor& source) {
    EMBER_CHECK(self.defined() && source.defined(), "set_: undefined tensor");
    self.impl()->set_data(*source.impl());
    self.bump_version();
  }, py::arg("self"), py::arg("source"));
  // obj (a Tensor instance, e.g. made by Tensor.__new__(cls)) now holds value: how
  // Tensor.as_subclass gives an instance of a subclass that shares value's autograd.
  m.def("_tensor_rebind", [](py::handle obj, const Tensor& value) {
    if (!is_tensor(obj)) throw TypeError("_tensor_rebind: obj is not an ember.Tensor");
    unwrap_tensor(obj) = value;
  }, py::arg("obj"), py::arg("value"));
  m.def("_storage_share_memory_", &share_memory, py::arg("anchor"));
  m.def("_storage_is_shared", [](const Tensor& t) {
    Storage& s = storage_of(t);
    return !s.device().is_cpu() || is_shared_block(s.data());
  }, py::arg("anchor"));
  m.def("_storage_filename", [](const Tensor& t) -> std::optional<std::string> {
    std::lock_guard<std::mutex> lock(shared_mutex);
    auto found = mapped_files().find(storage_of(t).data());
    if (found == mapped_files().end()) return std::nullopt;
    return found->second;
  }, py::arg("anchor"));
  // The descriptor of a block made by share_memory_ (-1 for other memory).
  m.def("_storage_shared_fd", [](const Tensor& t) {
    std::lock_guard<std::mutex> lock(shared_mutex);
    auto found = shared_fds().find(storage_of(t).data());
    return found == shared_fds().end() ? -1 : found->second;
  }, py::arg("anchor"));
  m.def("_storage_from_fd", &map_shared_from_fd, py::arg("fd"), py::arg("nbytes"));
  m.def("_storage_from_file", &map_file, py::arg("filename"), py::arg("shared"), py::arg("nbytes"));
  m.def("_bytes_of_buffer", &bytes_of_buffer, py::arg("buffer"), py::arg("offset") = 0,
        py::arg("nbytes") = -1);
}

}  // namespace ember::python
