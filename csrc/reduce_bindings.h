// Binding pieces shared by the reduce group's files (reduce.cpp, statistics.cpp):
// the dim argument (None, an int or a sequence of ints) and the named 2-tuples
// (ember.return_types.max, .median, ...) that reductions return.
#pragma once
#include <cstring>
#include <string>
#include <tuple>

#include "bindings.h"

namespace ember::python {

// dim: None (every dim), an int, or a tuple/list of ints.
struct Dims {
  IntList dims;
  bool given = false;
};

}  // namespace ember::python

namespace pybind11::detail {

template <>
struct type_caster<ember::python::Dims> {
  PYBIND11_TYPE_CASTER(ember::python::Dims, const_name("int | tuple[int, ...] | None"));
  bool load(handle src, bool) {
    value = ember::python::Dims{};
    if (src.is_none()) return true;
    if (load_int(src.ptr())) return true;
    if (!PyTuple_Check(src.ptr()) && !PyList_Check(src.ptr())) return false;
    value = ember::python::Dims{};
    for (handle item : reinterpret_borrow<sequence>(src))
      if (!load_int(item.ptr())) return false;
    value.given = true;
    return true;
  }

 private:
  bool load_int(PyObject* o) {
    if (PyBool_Check(o) || !PyLong_Check(o)) return false;
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    value.dims.push_back(v);
    value.given = true;
    return true;
  }
};

}  // namespace pybind11::detail

namespace ember::python {

// Defines ember.<name>(input, ...) and Tensor.<name>(...) from one function.
template <typename F, typename... Extra>
void def_op(py::module_& m, TensorClass& cls, const char* name, F f, const Extra&... extra) {
  m.def(name, f, py::arg("input"), extra...);
  cls.def(name, f, extra...);
}

// Named 2-tuples (a PyStructSequence, as torch.return_types.* are).
class ReturnType {
 public:
  ReturnType(py::module_& types, const char* name, const char* first, const char* second) {
    // Python keeps pointers to the description: it lives as long as the process.
    auto* fields = new PyStructSequence_Field[3]{{first, nullptr}, {second, nullptr}, {nullptr, nullptr}};
    std::string full = std::string("ember.return_types.") + name;
    auto* desc = new PyStructSequence_Desc{strdup(full.c_str()), nullptr, fields, 2};
    type_ = PyStructSequence_NewType(desc);
    if (!type_) throw py::error_already_set();
    types.attr(name) = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(type_));
  }
  py::object operator()(const std::tuple<Tensor, Tensor>& t) const {
    PyObject* r = PyStructSequence_New(type_);
    if (!r) throw py::error_already_set();
    PyStructSequence_SetItem(r, 0, py::cast(std::get<0>(t)).release().ptr());
    PyStructSequence_SetItem(r, 1, py::cast(std::get<1>(t)).release().ptr());
    return py::reinterpret_steal<py::object>(r);
  }

 private:
  PyTypeObject* type_;
};

}  // namespace ember::python
