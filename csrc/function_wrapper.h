// What ember's C function wrappers (_OutVariant in out_variants.cpp, _NumpyArgNames in
// numpy_arg_names.cpp) share: each holds the wrapped callable as `PyObject* fn` and
// looks like it to Python. Attribute reads other than the wrapper's own (__name__,
// __qualname__, __module__, __text_signature__, ...) go to fn, repr() is fn's, and
// __wrapped__ / __doc__ are fn and fn's docstring, so help() and inspect see fn.
#pragma once
#include <Python.h>

namespace ember::python::function_wrapper {

template <typename W>
PyObject* fn_of(PyObject* self) {
  return reinterpret_cast<W*>(self)->fn;
}

// The wrapper's own attributes first (__wrapped__, __call__, ...), then the function's.
template <typename W>
PyObject* getattro(PyObject* self, PyObject* name) {
  PyObject* found = PyObject_GenericGetAttr(self, name);
  if (found != nullptr || !PyErr_ExceptionMatches(PyExc_AttributeError)) return found;
  PyErr_Clear();
  return PyObject_GetAttr(fn_of<W>(self), name);
}

template <typename W>
PyObject* repr(PyObject* self) {
  return PyObject_Repr(fn_of<W>(self));
}

template <typename W>
PyObject* get_wrapped(PyObject* self, void*) {
  PyObject* fn = fn_of<W>(self);
  Py_INCREF(fn);
  return fn;
}

template <typename W>
PyObject* get_doc(PyObject* self, void*) {
  return PyObject_GetAttrString(fn_of<W>(self), "__doc__");
}

// dealloc for a GC type whose tp_clear drops its references.
template <int (*Clear)(PyObject*)>
void dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  Clear(self);
  Py_TYPE(self)->tp_free(self);
}

}  // namespace ember::python::function_wrapper
