// ember.tensor(data) and ember.as_tensor(data): a tensor from Python numbers,
// nested sequences, numpy arrays and scalars, or other tensors, with PyTorch's
// rules: the shape comes from the nesting (ragged data is an error), the dtype
// from the values (bool < int64 < the default float type; numpy scalars, arrays
// and 0-dim tensors bring their own dtype), and values that do not fit an
// integer dtype are an error rather than a silent wrap-around.
#include <cmath>
#include <limits>

#include "kernels/dtype_dispatch.h"
#include "dispatch/dispatcher.h"
#include "interop.h"

namespace ember::python {

namespace {

constexpr int64_t kMaxDims = 64;

// One element of the data: a number, a block (a tensor or array filling the
// innermost dims), or a sequence to descend into.
struct Item {
  enum Kind { kLeaf, kBlock, kSequence } kind;
  Scalar value;
  DType dtype = kFloat32;
  Tensor block;
};

Item leaf(Scalar v, DType t) { return {Item::kLeaf, v, t, {}}; }

Scalar int_value(PyObject* o) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  // PyTorch's ValueError ("Overflow when unpacking long long") for an int beyond int64.
  if (overflow) throw ValueError("ember.tensor: value cannot be converted to type int64 without overflow");
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return Scalar(static_cast<int64_t>(v));
}

// A Python bool, int or float (what numpy's item() gives) as a Scalar.
Scalar python_number(py::handle o) {
  if (PyBool_Check(o.ptr())) return Scalar(o.ptr() == Py_True);
  if (PyLong_Check(o.ptr())) return int_value(o.ptr());
  return Scalar(PyFloat_AsDouble(o.ptr()));
}

// A numpy array as a tensor: shared when its layout allows, else a native copy.
Tensor numpy_block(py::handle arr) {
  try {
    return tensor_from_numpy(arr);
  } catch (const ValueError&) {  // negative strides, foreign byte order, misaligned
    py::object np = py::module_::import("numpy");
    py::object native = arr.attr("dtype").attr("newbyteorder")("=");
    return tensor_from_numpy(np.attr("ascontiguousarray")(arr, native));
  }
}

// Objects numpy converts without guessing: they describe their own memory.
bool is_array_like(py::handle h) {
  return py::hasattr(h, "__array_interface__") || py::hasattr(h, "__array__");
}

Item classify(PyObject* o) {
  if (PyFloat_CheckExact(o)) return leaf(Scalar(PyFloat_AS_DOUBLE(o)), default_dtype());
  if (PyLong_CheckExact(o)) return leaf(int_value(o), kInt64);
  if (PyBool_Check(o)) return leaf(Scalar(o == Py_True), kBool);
  if (PyList_Check(o) || PyTuple_Check(o)) return {Item::kSequence, {}, kFloat32, {}};
  py::handle h(o);
  if (is_tensor(h)) {  // inside a list, a tensor is one number, as in PyTorch
    const Tensor& t = tensor_ref(h);
    EMBER_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
    return leaf(t.item(), t.dtype());
  }
  if (is_numpy_array(h)) {
    Tensor t = numpy_block(h);
    if (t.dim() == 0) return leaf(t.item(), t.dtype());
    return {Item::kBlock, {}, t.dtype(), t};
  }
  if (is_numpy_scalar(h)) {
    py::object arr = py::module_::import("numpy").attr("asarray")(h);
    Tensor t = numpy_block(arr);
    return leaf(t.item(), t.dtype());
  }
  if (is_array_like(h)) {  // a torch tensor, a pandas series, ...: through numpy
    py::object arr = py::module_::import("numpy").attr("asarray")(h);
    Tensor t = numpy_block(arr);
    if (t.dim() == 0) return leaf(t.item(), t.dtype());
    return {Item::kBlock, {}, t.dtype(), t};
  }
  if (PyComplex_Check(o))
    throw TypeError("ember.tensor: complex numbers are not supported");
  if (PyUnicode_Check(o) || PyBytes_Check(o) || PyByteArray_Check(o))
    throw TypeError(detail::str("ember.tensor: invalid data type '", Py_TYPE(o)->tp_name, "'"));
  if (PyFloat_Check(o)) return leaf(Scalar(PyFloat_AsDouble(o)), default_dtype());
  if (PyLong_Check(o)) return leaf(int_value(o), kInt64);
  if (PySequence_Check(o)) return {Item::kSequence, {}, kFloat32, {}};
  throw Error(detail::str("ember.tensor: Could not infer dtype of ", Py_TYPE(o)->tp_name));
}

// The shape, read from the first element at each level (checked against all
// the others while walking).
DimVector infer_shape(py::handle data) {
  DimVector shape;
  py::object obj = py::reinterpret_borrow<py::object>(data);
  while (true) {
    Item item = classify(obj.ptr());
    if (item.kind == Item::kLeaf) break;
    if (item.kind == Item::kBlock) {
      for (int64_t s : item.block.sizes()) shape.push_back(s);
      break;
    }
    Py_ssize_t n = PySequence_Size(obj.ptr());
    if (n < 0) throw py::error_already_set();
    shape.push_back(n);
    if (n == 0) break;
    obj = py::reinterpret_steal<py::object>(PySequence_GetItem(obj.ptr(), 0));
    if (!obj) throw py::error_already_set();
    EMBER_CHECK_VALUE(static_cast<int64_t>(shape.size()) < kMaxDims,
                      "ember.tensor: too many dimensions (more than ", kMaxDims, ")");
  }
  EMBER_CHECK_VALUE(static_cast<int64_t>(shape.size()) <= kMaxDims,
                    "ember.tensor: too many dimensions (more than ", kMaxDims, ")");
  return shape;
}

// Walks the data in row-major order, checking that it matches `shape`, and
// hands every number (v.leaf) and block (v.block) to the visitor.
template <typename Visitor>
void walk(PyObject* obj, size_t d, const DimVector& shape, Visitor& v) {
  Item item = classify(obj);
  if (item.kind == Item::kLeaf) {
    EMBER_CHECK_TYPE(d == shape.size(), "ember.tensor: expected a sequence at dim ", d,
                     " (got a number); nested sequences must not be ragged");
    v.leaf(item.value, item.dtype);
    return;
  }
  if (item.kind == Item::kBlock) {
    const DimVector& bs = item.block.sizes();
    bool fits = bs.size() == shape.size() - d && std::equal(bs.begin(), bs.end(), shape.begin() + d);
    EMBER_CHECK_VALUE(fits, "ember.tensor: expected an element of shape ",
                      shape_str(DimVector(shape.begin() + d, shape.end())), " at dim ", d,
                      " (got a tensor of shape ", shape_str(bs), ")");
    v.block(item.block);
    return;
  }
  EMBER_CHECK_TYPE(d < shape.size(), "ember.tensor: expected a number at dim ", d, " (got ",
                   Py_TYPE(obj)->tp_name, "); nested sequences must not be ragged");
  py::object seq = py::reinterpret_steal<py::object>(PySequence_Fast(obj, "not a sequence"));
  if (!seq) throw py::error_already_set();
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  EMBER_CHECK_VALUE(n == shape[d], "expected sequence of length ", shape[d], " at dim ", d,
                    " (got ", n, ")");
  for (Py_ssize_t i = 0; i < n; ++i) {
    EMBER_CHECK(PySequence_Fast_GET_SIZE(seq.ptr()) == n, "ember.tensor: the data changed size");
    py::object elem = py::reinterpret_borrow<py::object>(PySequence_Fast_GET_ITEM(seq.ptr(), i));
    walk(elem.ptr(), d + 1, shape, v);
  }
}

struct InferDType {
  std::optional<DType> dtype;
  void leaf(const Scalar&, DType t) { dtype = dtype ? promote_types(*dtype, t) : t; }
  void block(const Tensor& b) { leaf(Scalar(), b.dtype()); }
};

[[noreturn]] void overflow(DType t) {
  throw Error(detail::str("value cannot be converted to type ", dtype_name(t), " without overflow"));
}

// v as a T, refusing integer overflow as PyTorch does (negative ints wrap into
// unsigned types down to -max, as in C).
template <typename T>
T convert_checked(const Scalar& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v.to_bool();
  } else if constexpr (std::is_integral_v<T>) {
    using Lim = std::numeric_limits<T>;
    if (v.is_float()) {
      double t = std::trunc(v.to_double());
      double lo = std::is_signed_v<T> ? static_cast<double>(Lim::min()) : 0.0;
      double hi = static_cast<double>(Lim::max()) + 1.0;  // exact: a power of two
      if (!(t >= lo && t < hi)) overflow(dtype_of<T>::value);
      return static_cast<T>(t);
    }
    int64_t i = v.to_int();
    bool bad = std::is_signed_v<T> ? i < static_cast<int64_t>(Lim::min()) || i > static_cast<int64_t>(Lim::max())
                                   : i > static_cast<int64_t>(Lim::max()) || i < -static_cast<int64_t>(Lim::max());
    if (bad) overflow(dtype_of<T>::value);
    return static_cast<T>(i);
  } else {
    if (v.is_float()) return convert<T>(v.to_double());
    return convert<T>(v.to_int());
  }
}

template <typename T>
struct Fill {
  T* base;
  Tensor flat;
  int64_t pos = 0;
  void leaf(const Scalar& v, DType) { base[pos++] = convert_checked<T>(v); }
  void block(const Tensor& b) {
    Tensor dst = flat.narrow(0, pos, b.numel()).view(IntList(b.sizes().begin(), b.sizes().end()));
    dst.copy_(b);
    pos += b.numel();
  }
};

Tensor from_python(py::handle data, std::optional<DType> dtype) {
  DimVector shape = infer_shape(data);
  if (!dtype) {
    InferDType infer;
    walk(data.ptr(), 0, shape, infer);
    dtype = infer.dtype.value_or(default_dtype());
  }
  Tensor out = empty(shape, TensorOptions(*dtype));
  if (out.numel() == 0) return out;
  EMBER_DISPATCH_ALL(*dtype, "tensor", [&] {
    Fill<scalar_t> fill{static_cast<scalar_t*>(out.data_ptr()), out.view({-1})};
    walk(data.ptr(), 0, shape, fill);
  });
  return out;
}

}  // namespace

std::optional<Device> device_arg(py::handle device) {
  if (device.is_none()) return std::nullopt;
  if (py::isinstance<Device>(device)) return device.cast<Device>();
  if (PyUnicode_Check(device.ptr())) return Device(device.cast<std::string>());  // names a bad one
  throw TypeError(detail::str("expected a device (a str or an ember.device), got ",
                              Py_TYPE(device.ptr())->tp_name));
}

Tensor tensor_from_data(py::handle data, std::optional<DType> dtype, std::optional<Device> device,
                        bool requires_grad) {
  NoTraceGuard host_data;  // in a trace, the result is a constant (see lib/jit/tracer.h)
  Tensor result;
  if (is_tensor(data)) {
    Tensor src = tensor_ref(data).detach();
    result = src.to(device.value_or(src.device()), dtype.value_or(src.dtype()), false, true);
  } else if (is_numpy_array(data) || is_numpy_scalar(data) ||
             (!PyList_Check(data.ptr()) && !PyTuple_Check(data.ptr()) && is_array_like(data))) {
    Tensor src = numpy_block(py::module_::import("numpy").attr("asarray")(data));
    result = src.to(device.value_or(kCPU), dtype.value_or(src.dtype()), false, true);
  } else {
    result = from_python(data, dtype);
    if (device && *device != result.device()) result = result.to(*device);
  }
  if (requires_grad) {
    EMBER_CHECK(result.is_floating_point(), "Only Tensors of floating point dtype can require "
                "gradients, got ", dtype_name(result.dtype()));
    result.impl()->requires_grad = true;
  }
  return result;
}

Tensor as_tensor(py::handle data, std::optional<DType> dtype, std::optional<Device> device) {
  if (is_tensor(data)) {
    const Tensor& t = tensor_ref(data);
    return t.to(device.value_or(t.device()), dtype.value_or(t.dtype()));
  }
  if (is_numpy_array(data)) {
    Tensor t = numpy_block(data);
    return t.to(device.value_or(kCPU), dtype.value_or(t.dtype()));
  }
  return tensor_from_data(data, dtype, device, false);
}

}  // namespace ember::python
