// numpy <-> ember without copies: ember.from_numpy, Tensor.numpy(), __array__,
// and Tensor.tolist(). A tensor made from an array keeps the array alive (the
// storage's deleter drops the reference); an array made from a tensor has the
// tensor as its base.
#include <pybind11/numpy.h>

#include "dispatch/dispatcher.h"
#include "kernels/dtype_dispatch.h"
#include "interop.h"

namespace ember::python {

namespace {

std::optional<DType> dtype_from_numpy(const py::dtype& dt) {
  auto size = dt.itemsize();
  switch (dt.kind()) {
    case 'b': if (size == 1) return kBool; break;
    case 'u': if (size == 1) return kUInt8; break;
    case 'i':
      if (size == 1) return kInt8;
      if (size == 2) return kInt16;
      if (size == 4) return kInt32;
      if (size == 8) return kInt64;
      break;
    case 'f':
      if (size == 2) return kFloat16;
      if (size == 4) return kFloat32;
      if (size == 8) return kFloat64;
      break;
  }
  return std::nullopt;
}

// np.dtype objects per ember dtype, made once (leaked: they live as long as numpy).
py::dtype numpy_dtype(DType t) {
  static PyObject* cache[kNumDTypes] = {};
  PyObject*& slot = cache[static_cast<int>(t)];
  if (!slot) {
    EMBER_CHECK_TYPE(t != kBFloat16, "Got unsupported ScalarType BFloat16");
    slot = py::dtype(dtype_name(t)).release().ptr();
  }
  return py::reinterpret_borrow<py::dtype>(slot);
}

std::string numpy_type_name(const py::dtype& dt) {
  return "numpy." + std::string(py::str(dt.attr("type").attr("__name__")));
}

// The storage deleter of a tensor over a Python object's memory.
void release_pyobject(void* ctx, void*) {
  if (!Py_IsInitialized()) return;  // interpreter gone: nothing left to release
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(ctx));
  PyGILState_Release(gil);
}

void warn_not_writable() {
  static bool warned = false;
  if (warned) return;
  warned = true;
  int rc = PyErr_WarnEx(PyExc_UserWarning,
               "The given NumPy array is not writable, and ember does not support non-writable "
               "tensors. This means writing to this tensor will result in undefined behavior. "
               "You may want to copy the array to protect its data or make it writable before "
               "converting it to a tensor. This warning is shown once.", 1);
  if (rc < 0) throw py::error_already_set();
}

// Python objects for one element of type T.
template <typename T>
PyObject* to_python(T v) {
  if constexpr (std::is_same_v<T, bool>) return PyBool_FromLong(v);
  else if constexpr (is_float_v<T>) return PyFloat_FromDouble(static_cast<double>(static_cast<float>(v)));
  else return PyLong_FromLongLong(static_cast<long long>(v));
}
template <> PyObject* to_python<float>(float v) { return PyFloat_FromDouble(v); }
template <> PyObject* to_python<double>(double v) { return PyFloat_FromDouble(v); }

template <typename T>
PyObject* list_of(const T* data, const Tensor& t, int64_t d) {
  if (d == t.dim()) return to_python<T>(*data);
  int64_t n = t.size(d), stride = t.stride(d);
  PyObject* list = PyList_New(n);
  if (!list) return nullptr;
  for (int64_t i = 0; i < n; ++i) {
    PyObject* item = list_of<T>(data + i * stride, t, d + 1);
    if (!item) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}

}  // namespace

bool is_numpy_array(py::handle obj) { return py::isinstance<py::array>(obj); }

bool is_numpy_scalar(py::handle obj) {
  static PyObject* generic = py::object(py::module_::import("numpy").attr("generic")).release().ptr();
  return PyObject_IsInstance(obj.ptr(), generic) == 1;
}

Tensor tensor_from_numpy(py::handle obj) {
  EMBER_CHECK_TYPE(is_numpy_array(obj), "expected np.ndarray (got ", Py_TYPE(obj.ptr())->tp_name, ")");
  auto arr = py::reinterpret_borrow<py::array>(obj);
  py::dtype np_dtype = arr.dtype();
  std::optional<DType> dtype = dtype_from_numpy(np_dtype);
  EMBER_CHECK_TYPE(dtype, "can't convert np.ndarray of type ", numpy_type_name(np_dtype),
                   ". The only supported types are: float64, float32, float16, int64, int32, "
                   "int16, int8, uint8, and bool.");
  EMBER_CHECK_VALUE(np_dtype.attr("isnative").cast<bool>(), "given numpy array has byte order "
                    "different from the native byte order. Conversion between byte orders is "
                    "currently not supported.");
  auto item = static_cast<int64_t>(itemsize(*dtype));
  IntList sizes(arr.shape(), arr.shape() + arr.ndim());
  IntList strides(arr.ndim());
  int64_t numel = arr.size();
  for (int64_t d = arr.ndim() - 1, expected = 1; d >= 0; --d) {
    int64_t s = arr.strides()[d];
    if (numel == 0 || sizes[d] == 1) {  // any stride is fine: normalize it
      strides[d] = expected;
    } else {
      EMBER_CHECK_VALUE(s >= 0, "At least one stride in the given numpy array is negative, and "
                        "tensors with negative strides are not currently supported. (You can "
                        "probably work around this by making a copy of your array with "
                        "array.copy().)");
      EMBER_CHECK_VALUE(s % item == 0, "given numpy array strides not a multiple of the element "
                        "byte size. Copy the numpy array to reallocate the memory.");
      strides[d] = s / item;
    }
    expected *= std::max<int64_t>(sizes[d], 1);
  }
  void* data = const_cast<void*>(arr.data());
  // Kernels load whole elements: memory not aligned to the element size could fault.
  EMBER_CHECK_VALUE(numel == 0 || reinterpret_cast<uintptr_t>(data) % item == 0,
                    "given numpy array is not aligned to its element size (", item,
                    " bytes). Copy the numpy array to reallocate the memory.");
  if (!arr.writeable()) warn_not_writable();
  arr.inc_ref();  // dropped by release_pyobject, also when from_blob throws
  return from_blob(data, sizes, strides, *dtype, kCPU, &release_pyobject, arr.ptr());
}

py::object tensor_to_numpy(py::handle self, bool force) {
  Tensor t = py::cast<Tensor>(self);
  note_host_read("numpy()");
  py::object base = py::reinterpret_borrow<py::object>(self);
  if (force) {
    Tensor h = t.detach();
    if (!h.is_cpu()) h = h.cpu();
    t = h;
    base = py::cast(h);
  } else {
    EMBER_CHECK_TYPE(t.is_cpu(), "can't convert ", t.device().str(), " device type tensor to "
                     "numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
    EMBER_CHECK(!t.requires_grad(), "Can't call numpy() on Tensor that requires grad. Use "
                "tensor.detach().numpy() instead.");
  }
  py::dtype dt = numpy_dtype(t.dtype());
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<py::ssize_t> strides(t.strides().begin(), t.strides().end());
  for (auto& s : strides) s *= t.element_size();
  return py::array(dt, std::move(shape), std::move(strides), t.data_ptr(), base);
}

// __array__(dtype=None, copy=None), numpy 2's protocol.
py::object tensor_array(py::handle self, py::handle dtype, py::handle copy) {
  bool must_copy = !copy.is_none() && py::cast<bool>(copy);
  bool no_copy = !copy.is_none() && !py::cast<bool>(copy);
  py::object arr = tensor_to_numpy(self, false);
  if (!dtype.is_none()) {
    py::dtype want = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
    if (!want.equal(arr.attr("dtype"))) {
      EMBER_CHECK_VALUE(!no_copy, "Unable to avoid copy while creating an array as requested: "
                        "the tensor's dtype is ", dtype_name(py::cast<Tensor>(self).dtype()));
      return arr.attr("astype")(want);
    }
  }
  return must_copy ? arr.attr("copy")() : arr;
}

py::object tensor_tolist(const Tensor& self) {
  note_host_read("tolist()");
  Tensor t = self.is_cpu() ? self : self.cpu();
  PyObject* result = nullptr;
  EMBER_DISPATCH_ALL(t.dtype(), "tolist", [&] {
    result = list_of<scalar_t>(static_cast<const scalar_t*>(t.data_ptr()), t, 0);
  });
  if (!result) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(result);
}

}  // namespace ember::python
