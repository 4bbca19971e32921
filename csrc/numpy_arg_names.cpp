// ember._C._NumpyArgNames: a function or method that also takes numpy's keyword names.
//
// PyTorch's argument parser accepts numpy's spellings of four parameters in every
// function and Tensor method it binds: `axis` for `dim`, `keepdims` for `keepdim`,
// `x`, `a` or `x1` for `input`, and `x2` for `other` (`t.sum(axis=1, keepdims=True)`,
// common in code ported from numpy). ember's bindings name their parameters as PyTorch
// does; python/ember/_numpy_arg_names.py wraps each function and method that has one of
// those parameters in a _NumpyArgNames(fn, aliases) with aliases {numpy name: name}.
// A call without keywords, or whose keywords are all the function's own, goes straight
// to fn (the wrapper scans the keyword names only); a call using a numpy name is passed
// on with that name replaced.
//
// _NumpyArgNames(fn, aliases, method=True) makes the form for a class attribute (of the
// type _NumpyArgNamesMethod): a method descriptor, so `t.sum(...)` calls fn(t, ...)
// without making a bound method, and `t.sum` (not called) gives a bound method, as for a
// function. The plain form binds nothing, as a builtin function does (a user's class
// attribute `act = ember.tanh` stays a function). Both look like fn to Python
// (attributes, repr, __wrapped__: function_wrapper.h).
#include <vector>

#include "bindings.h"
#include "function_wrapper.h"

namespace ember::python {

namespace {

struct NumpyArgNames {
  PyObject_HEAD
  PyObject* fn;       // the wrapped callable
  PyObject* aliases;  // dict: numpy's name -> the parameter's name
  vectorcallfunc vectorcall;
};

PyObject* numpy_arg_names_vectorcall(PyObject* self_obj, PyObject* const* args, size_t nargsf,
                                     PyObject* kwnames) {
  auto* self = reinterpret_cast<NumpyArgNames*>(self_obj);
  if (kwnames == nullptr) return PyObject_Vectorcall(self->fn, args, nargsf, nullptr);
  const Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
  PyObject* renamed = nullptr;  // a copy of kwnames, made at the first numpy name
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    PyObject* target = PyDict_GetItemWithError(self->aliases, name);  // borrowed
    if (target == nullptr) {
      if (PyErr_Occurred()) {
        Py_XDECREF(renamed);
        return nullptr;
      }
      continue;
    }
    if (renamed == nullptr) {
      renamed = PyTuple_New(n);
      if (renamed == nullptr) return nullptr;
      for (Py_ssize_t j = 0; j < n; ++j) {
        PyObject* original = PyTuple_GET_ITEM(kwnames, j);
        Py_INCREF(original);
        PyTuple_SET_ITEM(renamed, j, original);
      }
    }
    Py_INCREF(target);
    Py_SETREF(PyTuple_GET_ITEM(renamed, i), target);
  }
  if (renamed == nullptr) return PyObject_Vectorcall(self->fn, args, nargsf, kwnames);
  PyObject* result = PyObject_Vectorcall(self->fn, args, nargsf, renamed);
  Py_DECREF(renamed);
  return result;
}

extern PyTypeObject numpy_arg_names_method_type;

PyObject* numpy_arg_names_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject* fn = nullptr;
  PyObject* aliases = nullptr;
  int method = 0;
  static const char* names[] = {"fn", "aliases", "method", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!|p:_NumpyArgNames", const_cast<char**>(names), &fn,
                                   &PyDict_Type, &aliases, &method))
    return nullptr;
  if (method) type = &numpy_arg_names_method_type;
  if (!PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "_NumpyArgNames(fn, aliases): fn must be callable");
    return nullptr;
  }
  PyObject* key = nullptr;
  PyObject* value = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(aliases, &pos, &key, &value)) {
    if (!PyUnicode_Check(key) || !PyUnicode_Check(value)) {
      PyErr_SetString(PyExc_TypeError, "_NumpyArgNames(fn, aliases): aliases maps names (str) to names");
      return nullptr;
    }
  }
  auto* self = reinterpret_cast<NumpyArgNames*>(type->tp_alloc(type, 0));
  if (self == nullptr) return nullptr;
  Py_INCREF(fn);
  self->fn = fn;
  self->aliases = PyDict_Copy(aliases);
  if (self->aliases == nullptr) {
    Py_DECREF(self);
    return nullptr;
  }
  self->vectorcall = numpy_arg_names_vectorcall;
  return reinterpret_cast<PyObject*>(self);
}

int numpy_arg_names_traverse(PyObject* self_obj, visitproc visit, void* arg) {
  auto* self = reinterpret_cast<NumpyArgNames*>(self_obj);
  Py_VISIT(self->fn);
  Py_VISIT(self->aliases);
  return 0;
}

int numpy_arg_names_clear(PyObject* self_obj) {
  auto* self = reinterpret_cast<NumpyArgNames*>(self_obj);
  Py_CLEAR(self->fn);
  Py_CLEAR(self->aliases);
  return 0;
}

// Read through an instance: a bound method (as a function would give); through the
// class: the wrapper itself.
PyObject* numpy_arg_names_descr_get(PyObject* self_obj, PyObject* instance, PyObject*) {
  if (instance == nullptr || instance == Py_None) {
    Py_INCREF(self_obj);
    return self_obj;
  }
  return PyMethod_New(self_obj, instance);
}

PyObject* numpy_arg_names_get_aliases(PyObject* self_obj, void*) {
  return PyDict_Copy(reinterpret_cast<NumpyArgNames*>(self_obj)->aliases);
}

PyGetSetDef numpy_arg_names_getset[] = {
    {"__wrapped__", function_wrapper::get_wrapped<NumpyArgNames>, nullptr, "the function without numpy's names",
     nullptr},
    {"_aliases", numpy_arg_names_get_aliases, nullptr, "numpy's name -> the parameter's name", nullptr},
    {"__doc__", function_wrapper::get_doc<NumpyArgNames>, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyTypeObject make_type(const char* name, bool method) {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = name;
  t.tp_basicsize = sizeof(NumpyArgNames);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  if (method) t.tp_flags |= Py_TPFLAGS_METHOD_DESCRIPTOR;
  t.tp_vectorcall_offset = offsetof(NumpyArgNames, vectorcall);
  t.tp_call = PyVectorcall_Call;
  t.tp_new = numpy_arg_names_new;
  t.tp_dealloc = function_wrapper::dealloc<numpy_arg_names_clear>;
  t.tp_traverse = numpy_arg_names_traverse;
  t.tp_clear = numpy_arg_names_clear;
  if (method) t.tp_descr_get = numpy_arg_names_descr_get;
  t.tp_getattro = function_wrapper::getattro<NumpyArgNames>;
  t.tp_repr = function_wrapper::repr<NumpyArgNames>;
  t.tp_getset = numpy_arg_names_getset;
  t.tp_doc = "A function that also takes numpy's keyword names (axis, keepdims, x, a, x1, x2).";
  return t;
}

PyTypeObject numpy_arg_names_type = make_type("ember._C._NumpyArgNames", false);
PyTypeObject numpy_arg_names_method_type = make_type("ember._C._NumpyArgNamesMethod", true);

}  // namespace

void bind_numpy_arg_names(py::module_& m) {
  for (PyTypeObject* t : {&numpy_arg_names_type, &numpy_arg_names_method_type})
    if (PyType_Ready(t) < 0) throw py::error_already_set();
  Py_INCREF(&numpy_arg_names_type);
  Py_INCREF(&numpy_arg_names_method_type);
  m.add_object("_NumpyArgNames", reinterpret_cast<PyObject*>(&numpy_arg_names_type));
  m.add_object("_NumpyArgNamesMethod", reinterpret_cast<PyObject*>(&numpy_arg_names_method_type));
}

}  // namespace ember::python
