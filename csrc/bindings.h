// Shared pieces of the Python bindings: type casters for ember's value types
// and the bind_* functions each file provides. The bindings only convert
// arguments and call the C++ API; they never compute anything themselves.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "ember/ember.h"
#include "tensor_object.h"  // ember.Tensor's type and its pybind11 caster

namespace py = pybind11;

namespace ember::python {

// A Tensor argument that also accepts a Python number (wrapped as a 0-dim
// tensor that takes part in type promotion as a number, like PyTorch's).
struct TensorArg {
  Tensor tensor;
  operator const Tensor&() const { return tensor; }
};
Tensor wrap_number(const Scalar& value);

// An ember.device or a device string ("cuda:0"); a bad string raises the
// device parser's own error rather than a generic cast failure.
Device device_from(py::handle obj);

// "2, 3" or "(2, 3)" or "[2, 3]" as a shape.
IntList shape_from_args(const py::args& args, const char* op);

// dtype=, device=, requires_grad= of a factory (other keywords raise TypeError).
TensorOptions options_from(const py::kwargs& kw, const char* op);
// generator=: an ember.Generator or None (nullptr: the default generator).
Generator* generator_from(py::handle obj);
// Removes generator= from kw and returns it (nullptr when absent or None).
Generator* pop_generator(py::kwargs& kw);

// x[key], as Tensor.__getitem__ (indexing.cpp).
Tensor tensor_getitem(const Tensor& self, py::handle key);

// Fast paths in front of the hottest Tensor bindings (fast_calls.cpp): a no-argument
// method served by fn (its binding takes over for any other arguments), then the
// install, once every binding exists.
void add_fast_unary_method(const char* name, Tensor (*fn)(const Tensor&));
void install_fast_calls(TensorClass& cls);

void bind_errors(py::module_& m);
void bind_types(py::module_& m);
TensorClass bind_tensor(py::module_& m);
void bind_factories(py::module_& m);
void bind_memory(py::module_& m);
void bind_elementwise(py::module_& m, TensorClass& cls);
void bind_reduce(py::module_& m, TensorClass& cls);
void bind_statistics(py::module_& m, TensorClass& cls);
void bind_linalg_extra(py::module_& m, TensorClass& cls);
void bind_linalg(py::module_& m, TensorClass& cls);
void bind_nn(py::module_& m, TensorClass& cls);
void bind_nn_backward(py::module_& m);
void bind_shape_index(py::module_& m, TensorClass& cls);
void bind_interop(py::module_& m, TensorClass& cls);
void bind_autograd(py::module_& m, TensorClass& cls);
void bind_serialize(py::module_& m);
void bind_random(py::module_& m, TensorClass& cls);
void bind_threads(py::module_& m);
void bind_optim(py::module_& m);
void bind_rnn(py::module_& m);
void bind_attention(py::module_& m);
void bind_cuda(py::module_& m, TensorClass& cls);
void bind_backends(py::module_& m);
void bind_op_schema(py::module_& m);
void bind_jit(py::module_& m);
void bind_activation(py::module_& m, TensorClass& cls);
void bind_tensor_api(py::module_& m, TensorClass& cls);
// Generated (gen_structured.py): the schema rows with kernel = {kind, formula}.
void bind_structured_ops(py::module_& m, TensorClass& cls);

}  // namespace ember::python

namespace pybind11::detail {

// Python bool/int/float (and numpy scalars) <-> ember::Scalar.
template <>
struct type_caster<ember::Scalar> {
  PYBIND11_TYPE_CASTER(ember::Scalar, const_name("Number"));
  bool load(handle src, bool convert) {
    PyObject* o = src.ptr();
    if (PyBool_Check(o)) { value = ember::Scalar(o == Py_True); return true; }
    if (PyLong_Check(o)) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow) throw ember::Error("value cannot be converted to int64 without overflow");
      value = ember::Scalar(static_cast<int64_t>(v));
      return true;
    }
    if (PyFloat_Check(o)) { value = ember::Scalar(PyFloat_AS_DOUBLE(o)); return true; }
    if (!convert) return false;
    // numpy scalars and 0-dim tensors: their .item() is a Python bool, int or float.
    // A tensor that requires grad is not a number (PyTorch's rule): its gradient
    // would be lost silently, so the call fails with TypeError instead.
    if (hasattr(src, "dtype") && hasattr(src, "item") && hasattr(src, "ndim") &&
        src.attr("ndim").cast<int>() == 0) {
      if (hasattr(src, "requires_grad") && src.attr("requires_grad").cast<bool>()) return false;
      object item = src.attr("item")();
      if (!PyBool_Check(item.ptr()) && !PyLong_Check(item.ptr()) && !PyFloat_Check(item.ptr()))
        return false;
      return load(item, false);
    }
    if (PyIndex_Check(o)) {
      object i = reinterpret_steal<object>(PyNumber_Index(o));
      if (!i) { PyErr_Clear(); return false; }
      return load(i, false);
    }
    return false;
  }
  static handle cast(const ember::Scalar& s, return_value_policy, handle) {
    if (s.is_bool()) return handle(s.to_bool() ? Py_True : Py_False).inc_ref();
    if (s.is_int()) return PyLong_FromLongLong(s.to_int());
    return PyFloat_FromDouble(s.to_double());
  }
};

template <>
struct type_caster<ember::python::TensorArg> {
  PYBIND11_TYPE_CASTER(ember::python::TensorArg, const_name("Tensor | Number"));
  bool load(handle src, bool convert) {
    make_caster<ember::Scalar> sc;
    // A Python number first: cheap to recognize, while a failed Tensor load is not.
    PyObject* o = src.ptr();
    if ((PyFloat_Check(o) || PyLong_Check(o)) && sc.load(src, false)) {
      value.tensor = ember::python::wrap_number(cast_op<ember::Scalar>(sc));
      return true;
    }
    make_caster<ember::Tensor> tc;
    if (tc.load(src, false)) {
      value.tensor = cast_op<const ember::Tensor&>(tc);
      return true;
    }
    if (sc.load(src, convert)) {
      value.tensor = ember::python::wrap_number(cast_op<ember::Scalar>(sc));
      return true;
    }
    return false;
  }
  static handle cast(const ember::python::TensorArg& t, return_value_policy p, handle parent) {
    return make_caster<ember::Tensor>::cast(t.tensor, p, parent);
  }
};

}  // namespace pybind11::detail
