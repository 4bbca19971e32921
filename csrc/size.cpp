// ember.Size: the type of Tensor.shape and Tensor.size(). A tuple subclass
// written against the CPython API (like torch.Size) so that building one for
// every x.shape and indexing it cost what a plain tuple costs.
#include "interop.h"

namespace ember::python {

namespace {

PyTypeObject size_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

// A Size holding the items of `tuple` (a plain tuple, or a Size).
PyObject* size_from_tuple(PyObject* tuple) {
  Py_ssize_t n = PyTuple_GET_SIZE(tuple);
  PyObject* self = size_type.tp_alloc(&size_type, n);
  if (!self) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(tuple, i);
    Py_INCREF(item);
    PyTuple_SET_ITEM(self, i, item);
  }
  return self;
}

PyObject* size_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject* iterable = nullptr;
  static const char* keywords[] = {"sizes", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Size", const_cast<char**>(keywords), &iterable))
    return nullptr;
  py::tuple items = iterable ? py::reinterpret_steal<py::tuple>(PySequence_Tuple(iterable))
                             : py::tuple(0);
  if (!items) return nullptr;
  Py_ssize_t n = PyTuple_GET_SIZE(items.ptr());
  PyObject* self = type->tp_alloc(type, n);
  if (!self) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(items.ptr(), i);
    // ints and objects with __index__ (numpy ints, 0-dim integer tensors); not bool or float.
    PyObject* index = PyBool_Check(item) || !PyIndex_Check(item) ? nullptr : PyNumber_Index(item);
    if (!index) {
      Py_DECREF(self);
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "ember.Size() takes an iterable of 'int' (item %zd is '%s')",
                     i, Py_TYPE(item)->tp_name);
      return nullptr;
    }
    PyTuple_SET_ITEM(self, i, index);
  }
  return self;
}

PyObject* size_repr(PyObject* self) {
  std::string s = "ember.Size([";
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); ++i) {
    if (i) s += ", ";
    PyObject* r = PyObject_Repr(PyTuple_GET_ITEM(self, i));
    if (!r) return nullptr;
    s += PyUnicode_AsUTF8(r);
    Py_DECREF(r);
  }
  s += "])";
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
}

// Slicing a Size gives a Size; indexing gives an int.
PyObject* size_subscript(PyObject* self, PyObject* key) {
  PyObject* r = PyTuple_Type.tp_as_mapping->mp_subscript(self, key);
  if (!r || !PySlice_Check(key)) return r;
  PyObject* s = size_from_tuple(r);
  Py_DECREF(r);
  return s;
}

// Size + tuple and tuple + Size give a Size, as in PyTorch.
PyObject* size_add(PyObject* a, PyObject* b) {
  if (!PyTuple_Check(a) || !PyTuple_Check(b)) Py_RETURN_NOTIMPLEMENTED;
  PyObject* r = PyTuple_Type.tp_as_sequence->sq_concat(a, b);
  if (!r) return nullptr;
  PyObject* s = size_from_tuple(r);
  Py_DECREF(r);
  return s;
}

PyObject* size_multiply(PyObject* a, PyObject* b) {
  PyObject* tuple = PyTuple_Check(a) ? a : b;
  PyObject* count = tuple == a ? b : a;
  if (!PyTuple_Check(tuple) || !PyIndex_Check(count)) Py_RETURN_NOTIMPLEMENTED;
  Py_ssize_t n = PyNumber_AsSsize_t(count, PyExc_OverflowError);
  if (n == -1 && PyErr_Occurred()) return nullptr;
  PyObject* r = PyTuple_Type.tp_as_sequence->sq_repeat(tuple, n);
  if (!r) return nullptr;
  PyObject* s = size_from_tuple(r);
  Py_DECREF(r);
  return s;
}

PyObject* size_numel(PyObject* self, PyObject*) {
  int64_t n = 1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); ++i) {
    int64_t v = PyLong_AsLongLong(PyTuple_GET_ITEM(self, i));
    if (v == -1 && PyErr_Occurred()) return nullptr;
    n *= v;
  }
  return PyLong_FromLongLong(n);
}

// Pickles as ember.Size((2, 3)).
PyObject* size_reduce(PyObject* self, PyObject*) {
  PyObject* items = PyTuple_GetSlice(self, 0, PyTuple_GET_SIZE(self));
  if (!items) return nullptr;
  return Py_BuildValue("(O(N))", reinterpret_cast<PyObject*>(&size_type), items);
}

PyMethodDef size_methods[] = {
    {"numel", size_numel, METH_NOARGS, "The number of elements of a tensor of this shape."},
    {"__reduce__", size_reduce, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};
PyMappingMethods size_as_mapping = {};
PyNumberMethods size_as_number = {};

}  // namespace

void bind_size(py::module_& m) {
  size_as_mapping.mp_length = PyTuple_Type.tp_as_mapping->mp_length;
  size_as_mapping.mp_subscript = size_subscript;
  size_as_number.nb_add = size_add;
  size_as_number.nb_multiply = size_multiply;
  size_type.tp_name = "ember.Size";
  size_type.tp_doc = "The shape of a tensor: a tuple of ints.";
  size_type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_TUPLE_SUBCLASS;
  size_type.tp_base = &PyTuple_Type;
  size_type.tp_new = size_new;
  size_type.tp_repr = size_repr;
  size_type.tp_as_mapping = &size_as_mapping;
  size_type.tp_as_number = &size_as_number;
  size_type.tp_methods = size_methods;
  if (PyType_Ready(&size_type) < 0) throw py::error_already_set();
  Py_INCREF(&size_type);
  m.attr("Size") = py::handle(reinterpret_cast<PyObject*>(&size_type));
}

py::object make_size(const DimVector& dims) {
  auto n = static_cast<Py_ssize_t>(dims.size());
  PyObject* self = size_type.tp_alloc(&size_type, n);
  if (!self) throw py::error_already_set();
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = PyLong_FromLongLong(dims[i]);
    if (!v) {
      Py_DECREF(self);
      throw py::error_already_set();
    }
    PyTuple_SET_ITEM(self, i, v);
  }
  return py::reinterpret_steal<py::object>(self);
}

}  // namespace ember::python
