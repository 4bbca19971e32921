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
// Attribute reads other than the wrapper's own (__name__, __doc__, __module__,
// __qualname__, __text_signature__, ...) are forwarded to fn, so help() and
// inspection see the wrapped function.
#include "bindings.h"

namespace ember::python {

namespace {

struct OutVariant {
  PyObject_HEAD
  PyObject* fn;       // the wrapped function
  PyObject* handler;  // called as handler(fn, *args, **kwargs) when `out` is given
  vectorcallfunc vectorcall;
};

bool has_out_keyword(PyObject* kwnames) {
  if (kwnames == nullptr) return false;
  const Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    if (PyUnicode_CompareWithASCIIString(name, "out") == 0) return true;
  }
  return false;
}

PyObject* out_variant_vectorcall(PyObject* self_obj, PyObject* const* args, size_t nargsf,
                                 PyObject* kwnames) {
  auto* self = reinterpret_cast<OutVariant*>(self_obj);
  if (!has_out_keyword(kwnames)) return PyObject_Vectorcall(self->fn, args, nargsf, kwnames);
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
  static const char* names[] = {"fn", "handler", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:_OutVariant", const_cast<char**>(names), &fn,
                                   &handler))
    return nullptr;
  if (!PyCallable_Check(fn) || !PyCallable_Check(handler)) {
    PyErr_SetString(PyExc_TypeError, "_OutVariant(fn, handler): both must be callable");
    return nullptr;
  }
  auto* self = reinterpret_cast<OutVariant*>(type->tp_alloc(type, 0));
  if (self == nullptr) return nullptr;
  Py_INCREF(fn);
  Py_INCREF(handler);
  self->fn = fn;
  self->handler = handler;
  self->vectorcall = out_variant_vectorcall;
  return reinterpret_cast<PyObject*>(self);
}

int out_variant_traverse(PyObject* self_obj, visitproc visit, void* arg) {
  auto* self = reinterpret_cast<OutVariant*>(self_obj);
  Py_VISIT(self->fn);
  Py_VISIT(self->handler);
  return 0;
}

int out_variant_clear(PyObject* self_obj) {
  auto* self = reinterpret_cast<OutVariant*>(self_obj);
  Py_CLEAR(self->fn);
  Py_CLEAR(self->handler);
  return 0;
}

void out_variant_dealloc(PyObject* self_obj) {
  PyObject_GC_UnTrack(self_obj);
  out_variant_clear(self_obj);
  Py_TYPE(self_obj)->tp_free(self_obj);
}

// The wrapper's own attributes first (__wrapped__, __call__, ...), then the function's.
PyObject* out_variant_getattro(PyObject* self_obj, PyObject* name) {
  PyObject* found = PyObject_GenericGetAttr(self_obj, name);
  if (found != nullptr || !PyErr_ExceptionMatches(PyExc_AttributeError)) return found;
  PyErr_Clear();
  return PyObject_GetAttr(reinterpret_cast<OutVariant*>(self_obj)->fn, name);
}

PyObject* out_variant_repr(PyObject* self_obj) {
  return PyObject_Repr(reinterpret_cast<OutVariant*>(self_obj)->fn);
}

PyObject* out_variant_get_wrapped(PyObject* self_obj, void*) {
  PyObject* fn = reinterpret_cast<OutVariant*>(self_obj)->fn;
  Py_INCREF(fn);
  return fn;
}

PyObject* out_variant_get_doc(PyObject* self_obj, void*) {
  return PyObject_GetAttrString(reinterpret_cast<OutVariant*>(self_obj)->fn, "__doc__");
}

PyGetSetDef out_variant_getset[] = {
    {"__wrapped__", out_variant_get_wrapped, nullptr, "the function without out=", nullptr},
    {"__doc__", out_variant_get_doc, nullptr, nullptr, nullptr},
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
  t.tp_dealloc = out_variant_dealloc;
  t.tp_getattro = out_variant_getattro;
  t.tp_repr = out_variant_repr;
  t.tp_getset = out_variant_getset;
  t.tp_doc = "_OutVariant(fn, handler): fn, with calls that pass out= sent to handler(fn, *args, **kwargs)";
  return t;
}();

}  // namespace

void bind_out_variants(py::module_& m) {
  if (PyType_Ready(&out_variant_type) < 0) throw py::error_already_set();
  Py_INCREF(&out_variant_type);
  m.add_object("_OutVariant", py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&out_variant_type)));
}

}  // namespace ember::python
