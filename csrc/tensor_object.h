// ember.Tensor's Python type: a CPython object that holds its ember::Tensor inline
// (as PyTorch's THPVariable does), and TensorClass, which adds methods and
// properties to it the way pybind11's class_ does.
//
// Why not py::class_<Tensor>: pybind11 keeps each wrapped value on the heap and in
// a registry of live instances, so every tensor returned to Python cost a
// malloc, a registry insert and, when it died, an erase and a free: most of a small
// op's time from Python (docs/PERF.md). Here a tensor object is one allocation
// and the pybind11 type caster (bindings.h) only checks the type.
#pragma once
#include <pybind11/pybind11.h>

#include "ember/ember.h"

namespace py = pybind11;

namespace ember::python {

struct TensorObject {
  PyObject_HEAD
  Tensor value;  // empty (shape [0]) until __init__ gives it data
  PyObject* dict;
  PyObject* weakrefs;
};

// The ember._C.Tensor type (created by make_tensor_type, once).
PyTypeObject* tensor_type();

// obj is an ember.Tensor (or an instance of a subclass, e.g. nn.Parameter).
inline bool is_tensor(PyObject* obj) {
  PyTypeObject* t = Py_TYPE(obj);
  return t == tensor_type() || PyType_IsSubtype(t, tensor_type());
}
inline bool is_tensor(py::handle obj) { return is_tensor(obj.ptr()); }

// The Tensor inside a Python object known to be one (no type check).
inline Tensor& unwrap_tensor(py::handle obj) {
  return reinterpret_cast<TensorObject*>(obj.ptr())->value;
}

// The Tensor of obj, which must be an ember.Tensor (else TypeError): what
// obj.cast<Tensor&>() would be, which pybind11 allows only for its own classes.
Tensor& tensor_ref(py::handle obj);

// A new reference to a new ember.Tensor holding t; nullptr with a Python error set
// when out of memory.
PyObject* wrap_tensor(Tensor t);

// Adds functions to the Tensor type as pybind11's class_ does: def (methods,
// overloads chained in order), def_property / def_property_readonly, def_static.
class TensorClass : public py::object {
 public:
  // Creates the type ember._C.Tensor in m.
  explicit TensorClass(py::module_& m);

  template <typename Func, typename... Extra>
  TensorClass& def(const char* name, Func&& f, const Extra&... extra) {
    py::cpp_function cf(std::forward<Func>(f), py::name(name), py::is_method(*this),
                        py::sibling(py::getattr(*this, name, py::none())), extra...);
    py::detail::add_class_method(*this, name, cf);
    return *this;
  }

  template <typename Func, typename... Extra>
  TensorClass& def_static(const char* name, Func&& f, const Extra&... extra) {
    py::cpp_function cf(std::forward<Func>(f), py::name(name), py::scope(*this),
                        py::sibling(py::getattr(*this, name, py::none())), extra...);
    attr(cf.attr("__name__")) = py::staticmethod(cf);
    return *this;
  }

  template <typename Getter, typename... Extra>
  TensorClass& def_property_readonly(const char* name, Getter&& get, const Extra&... extra) {
    py::cpp_function fget(std::forward<Getter>(get), py::is_method(*this), extra...);
    set_property(name, fget, py::none());
    return *this;
  }

  template <typename Getter, typename Setter, typename... Extra>
  TensorClass& def_property(const char* name, Getter&& get, Setter&& set, const Extra&... extra) {
    py::cpp_function fget(std::forward<Getter>(get), py::is_method(*this), extra...);
    py::cpp_function fset(std::forward<Setter>(set), py::is_method(*this));
    set_property(name, fget, fset);
    return *this;
  }

 private:
  void set_property(const char* name, const py::object& fget, const py::object& fset);
};

}  // namespace ember::python

namespace pybind11::detail {

// ember::Tensor <-> ember.Tensor: loading gives a reference to the object's own
// Tensor (a `Tensor&` parameter writes through to it: the `data` setter), returning
// makes a new object. A by-value parameter copies (one reference count), never moves
// out of the Python object.
template <>
struct type_caster<ember::Tensor> {
  static constexpr auto name = const_name("ember._C.Tensor");

  bool load(handle src, bool /*convert*/) {
    if (!src || !ember::python::is_tensor(src.ptr())) return false;
    value_ = &ember::python::unwrap_tensor(src);
    return true;
  }
  static handle cast(const ember::Tensor& t, return_value_policy, handle) {
    return ember::python::wrap_tensor(t);
  }
  static handle cast(ember::Tensor&& t, return_value_policy, handle) {
    return ember::python::wrap_tensor(std::move(t));
  }
  static handle cast(const ember::Tensor* t, return_value_policy policy, handle parent) {
    if (!t) return none().release();
    return cast(*t, policy, parent);
  }

  template <typename T>
  using cast_op_type = pybind11::detail::cast_op_type<T>;
  operator ember::Tensor*() { return value_; }
  operator ember::Tensor&() { return *value_; }

 private:
  ember::Tensor* value_ = nullptr;
};

}  // namespace pybind11::detail
