// ember.Tensor's Python type (tensor_object.h).
#include "tensor_object.h"

#include <cstddef>
#include <new>

#include <pybind11/detail/exception_translation.h>
#include <structmember.h>

#include "interop.h"  // tensor_from_data

namespace ember::python {

namespace {

PyTypeObject* g_tensor_type = nullptr;

// Tensor.__new__(cls): an object holding an empty tensor until __init__ runs.
PyObject* tensor_new(PyTypeObject* type, PyObject* /*args*/, PyObject* /*kwargs*/) {
  PyObject* obj = type->tp_alloc(type, 0);  // zeroed: dict and weakrefs are null
  if (!obj) return nullptr;
  // An empty tensor, as torch.Tensor.__new__(cls) gives: never an undefined one, which
  // methods are not written to receive.
  try {
    new (&reinterpret_cast<TensorObject*>(obj)->value) Tensor(empty({0}));
  } catch (...) {
    new (&reinterpret_cast<TensorObject*>(obj)->value) Tensor();
    Py_DECREF(obj);
    py::detail::try_translate_exceptions();
    return nullptr;
  }
  return obj;
}

// Tensor(...), PyTorch's legacy constructor, in the default dtype:
//   Tensor()                      an empty tensor (what Tensor.__new__(cls) alone leaves)
//   Tensor(*sizes)                an uninitialized tensor of that shape
//   Tensor(sequence)              the values of a (nested) list, tuple or array
//   Tensor(tensor, requires_grad=False)  a detached alias of tensor (same memory and
//                                 dtype); what Python subclasses (nn.Parameter, through
//                                 Tensor._make_subclass in _tensor.py) call.
Tensor construct(PyObject* args, PyObject* kwargs) {
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  PyObject* requires_grad = kwargs ? PyDict_GetItemString(kwargs, "requires_grad") : nullptr;
  if (kwargs && PyDict_GET_SIZE(kwargs) > (requires_grad ? 1 : 0))
    throw TypeError("Tensor(): the only keyword argument is requires_grad");
  if (n >= 1 && n <= 2 && is_tensor(PyTuple_GET_ITEM(args, 0))) {
    if (n == 2 && requires_grad) throw TypeError("Tensor(): requires_grad given twice");
    PyObject* flag = n == 2 ? PyTuple_GET_ITEM(args, 1) : requires_grad;
    int r = flag ? PyObject_IsTrue(flag) : 0;
    if (r < 0) throw py::error_already_set();
    Tensor alias = unwrap_tensor(PyTuple_GET_ITEM(args, 0)).detach();
    alias.requires_grad_(r != 0);
    return alias;
  }
  if (requires_grad) throw TypeError("Tensor(): requires_grad is taken only with a tensor as data");
  if (n == 0) return empty({0});
  bool sizes = true;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* a = PyTuple_GET_ITEM(args, i);
    sizes = sizes && PyLong_Check(a) && !PyBool_Check(a);
  }
  if (sizes) {
    IntList shape;
    for (Py_ssize_t i = 0; i < n; ++i) shape.push_back(py::handle(PyTuple_GET_ITEM(args, i)).cast<int64_t>());
    return empty(shape);
  }
  PyObject* data = PyTuple_GET_ITEM(args, 0);
  if (n == 1 && (PySequence_Check(data) && !PyUnicode_Check(data) && !PyBytes_Check(data)))
    return tensor_from_data(py::handle(data), default_dtype(), std::nullopt, false);
  throw TypeError(detail::str("new(): data must be a sequence (got ", Py_TYPE(data)->tp_name, ")"));
}

int tensor_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  try {
    unwrap_tensor(self) = construct(args, kwargs);
    return 0;
  } catch (...) {
    py::detail::try_translate_exceptions();
    return -1;
  }
}

int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<TensorObject*>(self)->dict);
  Py_VISIT(Py_TYPE(self));  // a heap type's instances own a reference to it
  return 0;
}

int tensor_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<TensorObject*>(self)->dict);
  return 0;
}

void tensor_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  auto* obj = reinterpret_cast<TensorObject*>(self);
  if (obj->weakrefs) PyObject_ClearWeakRefs(self);
  Py_CLEAR(obj->dict);
  obj->value.~Tensor();  // may free memory; never calls back into Python
  type->tp_free(self);
  Py_DECREF(type);
}

PyMemberDef tensor_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(TensorObject, dict), READONLY, nullptr},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(TensorObject, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyGetSetDef tensor_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot tensor_slots[] = {
    {Py_tp_new, reinterpret_cast<void*>(&tensor_new)},
    {Py_tp_init, reinterpret_cast<void*>(&tensor_init)},
    {Py_tp_dealloc, reinterpret_cast<void*>(&tensor_dealloc)},
    {Py_tp_traverse, reinterpret_cast<void*>(&tensor_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(&tensor_clear)},
    {Py_tp_members, tensor_members},
    {Py_tp_getset, tensor_getset},
    {Py_tp_doc, const_cast<char*>("A multi-dimensional array of one dtype on one device.")},
    {0, nullptr}};

PyType_Spec tensor_spec = {"ember._C.Tensor", sizeof(TensorObject), 0,
                           Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                           tensor_slots};

}  // namespace

PyTypeObject* tensor_type() { return g_tensor_type; }

PyObject* wrap_tensor(Tensor t) {
  PyTypeObject* type = g_tensor_type;
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) return nullptr;
  new (&reinterpret_cast<TensorObject*>(obj)->value) Tensor(std::move(t));
  return obj;
}

Tensor& tensor_ref(py::handle obj) {
  if (!obj || !is_tensor(obj.ptr()))
    throw py::type_error(detail::str("expected an ember.Tensor, got ",
                                     obj ? Py_TYPE(obj.ptr())->tp_name : "nothing"));
  return unwrap_tensor(obj);
}

TensorClass::TensorClass(py::module_& m) {
  if (!g_tensor_type) {
    PyObject* type = PyType_FromSpec(&tensor_spec);
    if (!type) throw py::error_already_set();
    g_tensor_type = reinterpret_cast<PyTypeObject*>(type);  // lives as long as the process
  }
  m_ptr = reinterpret_cast<PyObject*>(g_tensor_type);
  inc_ref();
  m.attr("Tensor") = *this;
}

void TensorClass::set_property(const char* name, const py::object& fget, const py::object& fset) {
  py::object property = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyProperty_Type));
  attr(name) = property(fget, fset, py::none(), py::none());  // doc: the getter's
}

}  // namespace ember::python
