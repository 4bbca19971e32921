// ember._C._OutVariant: a function that also takes PyTorch's `out=` keyword.
//
// PyTorch's functions take `out=` (`torch.add(a, b, out=c)`); ember's bindings do not.
// Rather than adding an `out` argument to every binding, python/ember/_out_variants.py
// wraps each such function in an _OutVariant(fn, handler): a call without `out` goes
// straight to fn (a vectorcall that only scans the keyword names, so the common call
// pays a few nanoseconds, not a Python frame), and a call with `out` goes to
// handler(fn, *args, **kwargs), which implements PyTorch's out= rules once for all
// functions (python/ember/_out_variants.py says which).
//
// The fast path (an _OutVariant made with a `finish` callable): a call whose out is one
// tensor and whose arguments are tensors and numbers, none requiring grad (or grad mode
// off), is computed here, and when the result already fits out (same dtype, shape and
// device, out not expanded nor partly overlapping an input) copied into out in C++;
// otherwise the computed result goes to finish(result, out, args), the Python rules,
// which never recompute it (a random op draws once). The ops whose out changes the
// computation itself (factories, reductions taking out's dtype) get no finish.
//
// It looks like fn to Python (attributes, repr, __wrapped__: function_wrapper.h).
#include <utility>
#include <vector>

#include <pybind11/detail/exception_translation.h>

#include "bindings.h"
#include "function_wrapper.h"

namespace ember::python {

namespace {

struct OutVariant {
  PyObject_HEAD
  PyObject* fn;       // the wrapped function
  PyObject* handler;  // called as handler(fn, *args, **kwargs) when `out` is given
  PyObject* finish;   // finish(result, out, args) or nullptr: no fast path
  vectorcallfunc vectorcall;
};

// The position of `out` among the keyword names, or -1.
Py_ssize_t out_keyword_index(PyObject* kwnames) {
  if (kwnames == nullptr) return -1;
  const Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    if (PyUnicode_CompareWithASCIIString(name, "out") == 0) return i;
  }
  return -1;
}

// [first, last] bytes a non-empty tensor's elements occupy.
std::pair<uintptr_t, uintptr_t> byte_range(const Tensor& t) {
  auto first = reinterpret_cast<uintptr_t>(t.data_ptr());
  int64_t span = 0;
  for (int64_t d = 0; d < t.dim(); ++d) span += (t.size(d) - 1) * t.stride(d);
  return {first, first + static_cast<uintptr_t>(span * t.element_size() + t.element_size() - 1)};
}

// Whether the fast path may take this call: the arguments (all but out) are tensors
// that do not require grad (any, with grad mode off), numbers, None, strings or bools.
bool fast_arguments(PyObject* const* args, Py_ssize_t n, Py_ssize_t out_at, const Tensor& out) {
  const bool grad = is_grad_enabled();
  if (grad && out.requires_grad()) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (i == out_at) continue;
    PyObject* a = args[i];
    if (is_tensor(a)) {
      if (grad && unwrap_tensor(a).requires_grad()) return false;
    } else if (!(PyLong_Check(a) || PyFloat_Check(a) || a == Py_None || PyUnicode_Check(a))) {
      return false;  // lists (cat), dtypes, generators, ...: the Python rules
    }
  }
  return true;
}

// Whether result can be copied into out as it is: the same dtype, shape and device, out
// not expanded, and out not partly overlapping a tensor argument.
bool fits_directly(const Tensor& result, const Tensor& out, PyObject* const* args, Py_ssize_t n,
                   Py_ssize_t out_at) {
  if (result.dtype() != out.dtype() || result.device() != out.device() || result.sizes() != out.sizes())
    return false;
  if (out.numel() == 0) return true;
  for (int64_t d = 0; d < out.dim(); ++d)
    if (out.stride(d) == 0 && out.size(d) > 1) return false;
  const auto [o_first, o_last] = byte_range(out);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (i == out_at || !is_tensor(args[i])) continue;
    const Tensor& t = unwrap_tensor(args[i]);
    if (t.numel() == 0 || t.device() != out.device() || t.is_same(out)) continue;
    const auto [first, last] = byte_range(t);
    if (first > o_last || o_first > last) continue;
    const bool same = t.data_ptr() == out.data_ptr() && t.sizes() == out.sizes() &&
                      t.strides() == out.strides() && t.dtype() == out.dtype();
    if (!same) return false;
  }
  return true;
}

// The fast path, nullptr with an error set, or nullptr without one: not taken (no work done).
PyObject* fast_out_call(OutVariant* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                        Py_ssize_t out_kw, bool& taken) {
  taken = false;
  const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
  const Py_ssize_t out_at = nargs + out_kw;
  PyObject* out_obj = args[out_at];
  if (self->finish == nullptr || !is_tensor(out_obj)) return nullptr;
  const Tensor& out = unwrap_tensor(out_obj);
  if (!fast_arguments(args, nargs + nkw, out_at, out)) return nullptr;
  taken = true;
  // fn(*args, **kwargs without out)
  std::vector<PyObject*> call_args;
  call_args.reserve(static_cast<size_t>(nargs + nkw));
  for (Py_ssize_t i = 0; i < nargs + nkw; ++i)
    if (i != out_at) call_args.push_back(args[i]);
  PyObject* names = nullptr;
  if (nkw > 1) {
    names = PyTuple_New(nkw - 1);
    if (names == nullptr) return nullptr;
    for (Py_ssize_t i = 0, j = 0; i < nkw; ++i) {
      if (i == out_kw) continue;
      PyObject* name = PyTuple_GET_ITEM(kwnames, i);
      Py_INCREF(name);
      PyTuple_SET_ITEM(names, j++, name);
    }
  }
  PyObject* result = PyObject_Vectorcall(self->fn, call_args.data(), static_cast<size_t>(nargs), names);
  Py_XDECREF(names);
  if (result == nullptr) return nullptr;
  try {
    if (is_tensor(result) && fits_directly(unwrap_tensor(result), out, args, nargs + nkw, out_at)) {
      {
        NoGradGuard no_grad;
        Tensor target = out;
        target.copy_(unwrap_tensor(result));
      }
      Py_DECREF(result);
      Py_INCREF(out_obj);
      return out_obj;
    }
  } catch (...) {
    Py_DECREF(result);
    py::detail::try_translate_exceptions();
    return nullptr;
  }
  // finish(result, out, (args without out)): PyTorch's rules on the computed result.
  PyObject* inputs = PyTuple_New(static_cast<Py_ssize_t>(call_args.size()));
  if (inputs == nullptr) {
    Py_DECREF(result);
    return nullptr;
  }
  for (size_t i = 0; i < call_args.size(); ++i) {
    Py_INCREF(call_args[i]);
    PyTuple_SET_ITEM(inputs, static_cast<Py_ssize_t>(i), call_args[i]);
  }
  PyObject* finished = PyObject_CallFunctionObjArgs(self->finish, result, out_obj, inputs, nullptr);
  Py_DECREF(inputs);
  Py_DECREF(result);
  return finished;
}

PyObject* out_variant_vectorcall(PyObject* self_obj, PyObject* const* args, size_t nargsf,
                                 PyObject* kwnames) {
  auto* self = reinterpret_cast<OutVariant*>(self_obj);
  const Py_ssize_t out_kw = out_keyword_index(kwnames);
  if (out_kw < 0) return PyObject_Vectorcall(self->fn, args, nargsf, kwnames);
  bool taken = false;
  PyObject* fast = fast_out_call(self, args, PyVectorcall_NARGS(nargsf), kwnames, out_kw, taken);
  if (taken || fast != nullptr) return fast;
  // handler(fn, *args, **kwargs): prepend fn to the positional arguments.
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
  std::vector<PyObject*> full(static_cast<size_t>(nargs + nkw + 1));
  full[0] = self->fn;
  for (Py_ssize_t i = 0; i < nargs + nkw; ++i) full[static_cast<size_t>(i + 1)] = args[i];
  return PyObject_Vectorcall(self->handler, full.data(), static_cast<size_t>(nargs + 1), kwnames);
}

PyObject* out_variant_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject* fn = nullptr;
  PyObject* handler = nullptr;
  PyObject* finish = Py_None;
  static const char* names[] = {"fn", "handler", "finish", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O:_OutVariant", const_cast<char**>(names), &fn,
                                   &handler, &finish))
    return nullptr;
  if (!PyCallable_Check(fn) || !PyCallable_Check(handler) || !(finish == Py_None || PyCallable_Check(finish))) {
    PyErr_SetString(PyExc_TypeError, "_OutVariant(fn, handler, finish=None): fn and handler must be "
                                     "callable, finish callable or None");
    return nullptr;
  }
  auto* self = reinterpret_cast<OutVariant*>(type->tp_alloc(type, 0));
  if (self == nullptr) return nullptr;
  Py_INCREF(fn);
  Py_INCREF(handler);
  self->fn = fn;
  self->handler = handler;
  self->finish = finish == Py_None ? nullptr : finish;
  Py_XINCREF(self->finish);
  self->vectorcall = out_variant_vectorcall;
  return reinterpret_cast<PyObject*>(self);
}

int out_variant_traverse(PyObject* self_obj, visitproc visit, void* arg) {
  auto* self = reinterpret_cast<OutVariant*>(self_obj);
  Py_VISIT(self->fn);
  Py_VISIT(self->handler);
  Py_VISIT(self->finish);
  return 0;
}

int out_variant_clear(PyObject* self_obj) {
  auto* self = reinterpret_cast<OutVariant*>(self_obj);
  Py_CLEAR(self->fn);
  Py_CLEAR(self->handler);
  Py_CLEAR(self->finish);
  return 0;
}

PyGetSetDef out_variant_getset[] = {
    {"__wrapped__", function_wrapper::get_wrapped<OutVariant>, nullptr, "the function without out=", nullptr},
    {"__doc__", function_wrapper::get_doc<OutVariant>, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyTypeObject out_variant_type = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "ember._C._OutVariant";
  t.tp_basicsize = sizeof(OutVariant);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  t.tp_vectorcall_offset = offsetof(OutVariant, vectorcall);
  t.tp_call = PyVectorcall_Call;
  t.tp_new = out_variant_new;
  t.tp_traverse = out_variant_traverse;
  t.tp_clear = out_variant_clear;
  t.tp_dealloc = function_wrapper::dealloc<out_variant_clear>;
  t.tp_getattro = function_wrapper::getattro<OutVariant>;
  t.tp_repr = function_wrapper::repr<OutVariant>;
  t.tp_getset = out_variant_getset;
  t.tp_doc = "_OutVariant(fn, handler, finish=None): fn, with calls that pass out= sent to "
             "handler(fn, *args, **kwargs) (or computed here, then finish(result, out, args))";
  return t;
}();

}  // namespace

void bind_out_variants(py::module_& m) {
  if (PyType_Ready(&out_variant_type) < 0) throw py::error_already_set();
  Py_INCREF(&out_variant_type);
  m.add_object("_OutVariant", py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&out_variant_type)));
}

}  // namespace ember::python
