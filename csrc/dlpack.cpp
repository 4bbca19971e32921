// DLPack exchange, both ways and without copies: Tensor.__dlpack__ /
// __dlpack_device__ export a tensor to any consumer (numpy, torch, ...), and
// ember.from_dlpack takes any producer's object or capsule. Both the versioned
// (DLPack 1.x, "dltensor_versioned") and the older unversioned form are spoken.
#include "dlpack.h"

#include "ember/cuda.h"
#include "interop.h"

namespace ember::python {

using namespace ember::dlpack;

namespace {

// ---- export -------------------------------------------------------------------

// What a capsule owns: a handle on the tensor (keeping its memory alive) and the
// shape and strides arrays the DLTensor points into.
template <typename Managed>
struct Exported {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  Managed managed{};
};

DLDataType to_dl_dtype(DType t) {
  auto bits = static_cast<uint8_t>(itemsize(t) * 8);
  switch (t) {
    case kBool: return {kDLBool, 8, 1};
    case kUInt8: return {kDLUInt, 8, 1};
    case kBFloat16: return {kDLBfloat, 16, 1};
    case kFloat16: case kFloat32: case kFloat64: return {kDLFloat, bits, 1};
    default: return {kDLInt, bits, 1};
  }
}

DLDevice to_dl_device(Device d) {
  if (d.is_cpu()) return {kDLCPU, 0};
  return {kDLCUDA, d.index < 0 ? 0 : d.index};
}

template <typename Managed>
void delete_exported(Managed* self) {
  delete static_cast<Exported<Managed>*>(self->manager_ctx);
}

// A capsule nobody consumed still owns its tensor.
template <typename Managed>
void capsule_destructor(PyObject* capsule) {
  constexpr bool versioned = std::is_same_v<Managed, DLManagedTensorVersioned>;
  const char* name = versioned ? kVersionedCapsuleName : kCapsuleName;
  if (!PyCapsule_IsValid(capsule, name)) return;  // consumed (renamed "used_...")
  auto* managed = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
  if (managed && managed->deleter) managed->deleter(managed);
}

template <typename Managed>
py::capsule make_capsule(const Tensor& t, uint64_t flags) {
  constexpr bool versioned = std::is_same_v<Managed, DLManagedTensorVersioned>;
  auto* e = new Exported<Managed>{t, IntList(t.sizes().begin(), t.sizes().end()),
                                  IntList(t.strides().begin(), t.strides().end())};
  e->shape.reserve(1);  // a valid pointer even for 0-dim tensors
  e->strides.reserve(1);
  Managed& m = e->managed;
  m.manager_ctx = e;
  m.deleter = &delete_exported<Managed>;
  if constexpr (versioned) {
    m.version = {kMajorVersion, kMinorVersion};
    m.flags = flags;
  }
  DLTensor& dl = m.dl_tensor;
  dl.data = t.data_ptr();
  dl.device = to_dl_device(t.device());
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = to_dl_dtype(t.dtype());
  dl.shape = e->shape.data();
  dl.strides = e->strides.data();
  dl.byte_offset = 0;
  PyObject* capsule = PyCapsule_New(&m, versioned ? kVersionedCapsuleName : kCapsuleName,
                                    &capsule_destructor<Managed>);
  if (!capsule) {
    delete e;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

// ---- import -------------------------------------------------------------------

std::optional<DType> from_dl_dtype(DLDataType t) {
  if (t.lanes != 1) return std::nullopt;
  switch (t.code) {
    case kDLBool: if (t.bits == 8) return kBool; break;
    case kDLUInt: if (t.bits == 8) return kUInt8; break;
    case kDLInt:
      if (t.bits == 8) return kInt8;
      if (t.bits == 16) return kInt16;
      if (t.bits == 32) return kInt32;
      if (t.bits == 64) return kInt64;
      break;
    case kDLFloat:
      if (t.bits == 16) return kFloat16;
      if (t.bits == 32) return kFloat32;
      if (t.bits == 64) return kFloat64;
      break;
    case kDLBfloat: if (t.bits == 16) return kBFloat16; break;
  }
  return std::nullopt;
}

const char* dl_type_code_name(uint8_t code) {
  switch (code) {
    case kDLInt: return "int";
    case kDLUInt: return "uint";
    case kDLFloat: return "float";
    case kDLBfloat: return "bfloat";
    case kDLComplex: return "complex";
    case kDLBool: return "bool";
    default: return "unknown";
  }
}

template <typename Managed>
void release_managed(void* ctx, void*) {
  auto* m = static_cast<Managed*>(ctx);
  if (m->deleter) m->deleter(m);
}

bool is_cuda_memory(int32_t device_type) {
  return device_type == kDLCUDA || device_type == kDLCUDAManaged;
}

// The ember device of DLPack memory: host memory (pinned too) is the CPU's; CUDA memory
// needs a CUDA build. Anything else is refused, naming the device type.
::ember::Device device_for(int32_t device_type, int32_t device_id, const char* what) {
  if (device_type == kDLCPU || device_type == kDLCUDAHost) return kCPU;
  if (is_cuda_memory(device_type) && cuda::is_built()) return ::ember::Device(::ember::DeviceType::CUDA, device_id);
  throw py::buffer_error(detail::str(
      "from_dlpack: ", what, " is on DLPack device type ", device_type,
      (is_cuda_memory(device_type) ? " (CUDA); ember was built without the CUDA backend"
                                   : "; ember reads CPU and CUDA memory only")));
}

// A tensor over the DLTensor's memory; the capsule is marked consumed.
template <typename Managed>
Tensor consume(py::handle capsule, const char* name, const char* used_name) {
  auto* m = static_cast<Managed*>(PyCapsule_GetPointer(capsule.ptr(), name));
  if (!m) throw py::error_already_set();
  if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
    if (m->version.major != kMajorVersion)
      throw py::buffer_error(detail::str("from_dlpack: DLPack version ", m->version.major, ".",
                                         m->version.minor, " is not supported (ember reads ",
                                         kMajorVersion, ".x)"));
    if ((m->flags & kFlagReadOnly) &&
        PyErr_WarnEx(PyExc_UserWarning, "from_dlpack: the DLPack tensor is read-only, and ember "
                     "does not support read-only tensors: writing to it is undefined behavior", 1) < 0)
      throw py::error_already_set();
  }
  const DLTensor& dl = m->dl_tensor;
  const ::ember::Device device = device_for(dl.device.device_type, dl.device.device_id, "the DLPack tensor");
  EMBER_CHECK_VALUE(dl.ndim >= 0 && dl.ndim <= 64, "from_dlpack: bad number of dims ", dl.ndim);
  std::optional<DType> dtype = from_dl_dtype(dl.dtype);
  EMBER_CHECK_TYPE(dtype, "from_dlpack: unsupported DLPack dtype ", dl_type_code_name(dl.dtype.code),
                   int(dl.dtype.bits), (dl.dtype.lanes != 1 ? " with lanes " : ""),
                   (dl.dtype.lanes != 1 ? std::to_string(dl.dtype.lanes) : std::string()),
                   " (ember supports bool, uint8, int8-64, float16, bfloat16, float32, float64)");
  IntList sizes(dl.shape, dl.shape + dl.ndim);
  IntList strides(dl.ndim);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  for (int64_t d = dl.ndim - 1, expected = 1; d >= 0; --d) {
    EMBER_CHECK_VALUE(sizes[d] >= 0, "from_dlpack: negative size in shape ",
                      shape_str(DimVector(sizes.begin(), sizes.end())));
    strides[d] = dl.strides && numel > 0 && sizes[d] > 1 ? dl.strides[d] : expected;
    EMBER_CHECK_VALUE(strides[d] >= 0, "from_dlpack: tensors with negative strides are not "
                      "supported (strides ", shape_str(DimVector(dl.strides, dl.strides + dl.ndim)),
                      "); make a copy first");
    expected *= std::max<int64_t>(sizes[d], 1);
  }
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  EMBER_CHECK_VALUE(numel == 0 || reinterpret_cast<uintptr_t>(data) % itemsize(*dtype) == 0,
                    "from_dlpack: the data is not aligned to its element size");
  // From here on ember owns the DLPack tensor: from_blob calls the deleter on every path.
  if (PyCapsule_SetName(capsule.ptr(), used_name) != 0) throw py::error_already_set();
  return from_blob(data, sizes, strides, *dtype, device, &release_managed<Managed>, m);
}

}  // namespace

py::capsule tensor_to_dlpack(const Tensor& t, py::handle max_version, py::handle dl_device,
                             py::handle copy) {
  if (t.requires_grad())
    throw py::buffer_error("Can't export tensors that require gradient, use tensor.detach()");
  DLDevice own = to_dl_device(t.device());
  if (!dl_device.is_none()) {
    auto want = py::cast<std::pair<int, int>>(dl_device);
    if (want.first != own.device_type || want.second != own.device_id)
      throw py::buffer_error(detail::str("__dlpack__: cannot export a tensor on ", t.device().str(),
                                         " to DLPack device (", want.first, ", ", want.second, ")"));
  }
  bool copied = !copy.is_none() && py::cast<bool>(copy);
  Tensor src = copied ? t.clone() : t;
  bool versioned = !max_version.is_none() &&
                   py::cast<int>(py::reinterpret_borrow<py::sequence>(max_version)[0]) >= 1;
  if (versioned) return make_capsule<DLManagedTensorVersioned>(src, copied ? kFlagIsCopied : 0);
  return make_capsule<DLManagedTensor>(src, 0);
}

void make_consumer_stream_wait(const Tensor& t, py::handle stream) {
  if (!t.is_cuda()) {
    if (!stream.is_none() && !(PyLong_Check(stream.ptr()) && PyLong_AsLong(stream.ptr()) == -1))
      throw py::buffer_error("__dlpack__: stream must be None for a CPU tensor");
    return;
  }
  // None: the consumer uses CUDA's legacy default stream (1); -1: it asks for no
  // synchronization; 2: the per-thread default stream; any other integer: a cudaStream_t.
  const int64_t value = stream.is_none() ? 1 : py::cast<int64_t>(stream);
  if (value == -1) return;
  EMBER_CHECK_VALUE(value > 0, "__dlpack__: stream ", value, " is not a valid CUDA stream "
                    "(DLPack: 1 legacy default, 2 per-thread default, or a cudaStream_t)");
  const int device = t.device().index;
  cuda::Stream ours = cuda::current_stream(device);
  cuda::Stream theirs = cuda::Stream::wrap(device, reinterpret_cast<void*>(value));
  const bool same = theirs == ours || (value == 1 && ours.id() == 0);
  if (!same) theirs.wait_stream(ours);
}

py::tuple tensor_dlpack_device(const Tensor& t) {
  DLDevice d = to_dl_device(t.device());
  return py::make_tuple(d.device_type, d.device_id);
}

Tensor tensor_from_dlpack(py::handle obj) {
  py::object capsule;
  if (PyCapsule_CheckExact(obj.ptr())) {
    capsule = py::reinterpret_borrow<py::object>(obj);
  } else if (py::hasattr(obj, "__dlpack__")) {
    py::dict kwargs;
    if (py::hasattr(obj, "__dlpack_device__")) {
      auto dev = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
      ::ember::Device device = device_for(dev.first, dev.second, "the object");
      // DLPack's stream handshake: the producer makes the stream we name wait for its
      // work on the data. Ours is this thread's current stream of that device (its
      // default stream is CUDA's legacy default stream, which DLPack calls 1).
      if (device.is_cuda()) {
        uintptr_t handle = cuda::current_stream(device.index).id();
        kwargs["stream"] = py::int_(handle == 0 ? uintptr_t{1} : handle);
      }
    }
    try {
      capsule = obj.attr("__dlpack__")(**kwargs, py::arg("max_version") =
                                                     py::make_tuple(kMajorVersion, kMinorVersion));
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_TypeError)) throw;  // an older producer without max_version
      capsule = obj.attr("__dlpack__")(**kwargs);
    }
  } else {
    throw TypeError(detail::str("from_dlpack: expected an object with __dlpack__ (a numpy array, "
                                "a torch tensor, ...) or a DLPack capsule, got ",
                                Py_TYPE(obj.ptr())->tp_name));
  }
  if (PyCapsule_IsValid(capsule.ptr(), kVersionedCapsuleName))
    return consume<DLManagedTensorVersioned>(capsule, kVersionedCapsuleName, kUsedVersionedCapsuleName);
  if (PyCapsule_IsValid(capsule.ptr(), kCapsuleName))
    return consume<DLManagedTensor>(capsule, kCapsuleName, kUsedCapsuleName);
  throw ValueError("from_dlpack: the capsule is not a DLPack tensor, or it was already consumed "
                   "(a DLPack capsule can be used only once)");
}

}  // namespace ember::python
