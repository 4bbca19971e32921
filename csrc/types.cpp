// ember.dtype objects (ember.float32, ...) and ember.device.
#include "bindings.h"

namespace ember::python {

Device device_from(py::handle obj) {
  if (py::isinstance<py::str>(obj)) return Device(obj.cast<std::string>());
  return obj.cast<Device>();
}

void bind_types(py::module_& m) {
  py::enum_<DType> dtype(m, "dtype");
  for (int i = 0; i < kNumDTypes; ++i) {
    DType t = static_cast<DType>(i);
    dtype.value(dtype_name(t), t);
  }
  // prepend: py::enum_ already defines a generic __repr__ that would win the overload.
  dtype.def("__repr__", [](DType t) { return std::string("ember.") + dtype_name(t); }, py::prepend())
      .def("__str__", [](DType t) { return std::string("ember.") + dtype_name(t); })
      .def_property_readonly("itemsize", [](DType t) { return itemsize(t); })
      .def_property_readonly("is_floating_point", [](DType t) { return is_floating(t); })
      .def_property_readonly("is_signed", [](DType t) { return is_signed(t); })
      // ember has no complex dtypes: every dtype is real, and its own real dtype.
      .def_property_readonly("is_complex", [](DType) { return false; })
      .def("to_real", [](DType t) { return t; })
      .def_property_readonly("abbr", [](DType t) {
        switch (t) {
          case kFloat32: return "f32";
          case kFloat64: return "f64";
          case kFloat16: return "f16";
          case kBFloat16: return "bf16";
          case kInt8: return "i8";
          case kInt16: return "i16";
          case kInt32: return "i32";
          case kInt64: return "i64";
          case kUInt8: return "u8";
          case kBool: return "b8";
          default: return "";
        }
      })
      .def("__reduce__", [](DType t) {
        return py::make_tuple(py::module_::import("ember").attr("_dtype_from_name"),
                              py::make_tuple(dtype_name(t)));
      });
  for (int i = 0; i < kNumDTypes; ++i) {
    DType t = static_cast<DType>(i);
    m.attr(dtype_name(t)) = t;
  }
  m.def("_dtype_from_name", &dtype_from_name);
  m.def("promote_types", &promote_types, py::arg("type1"), py::arg("type2"));
  m.def("can_cast", &can_cast, py::arg("from_"), py::arg("to"));
  m.def("get_default_dtype", &default_dtype);
  m.def("set_default_dtype", &set_default_dtype);

  py::class_<Device>(m, "device")
      .def(py::init<const std::string&>())
      .def(py::init([](const std::string& type, int index) {
        return Device(type + ":" + std::to_string(index));
      }))
      .def_property_readonly("type", [](const Device& d) { return d.is_cpu() ? "cpu" : "cuda"; })
      .def_property_readonly("index", [](const Device& d) -> py::object {
        if (d.index < 0) return py::none();
        return py::int_(d.index);
      })
      .def("__repr__", [](const Device& d) {
        std::string s = "device(type='" + std::string(d.is_cpu() ? "cpu" : "cuda") + "'";
        if (d.index >= 0) s += ", index=" + std::to_string(d.index);
        return s + ")";
      })
      .def("__str__", &Device::str)
      .def("__eq__", [](const Device& a, const Device& b) { return a == b; })
      .def("__eq__", [](const Device& a, const std::string& b) { return a == Device(b); })
      .def("__hash__", [](const Device& d) { return std::hash<std::string>()(d.str()); })
      .def("__reduce__", [](const Device& d) {
        return py::make_tuple(py::module_::import("ember").attr("device"), py::make_tuple(d.str()));
      });
  py::implicitly_convertible<py::str, Device>();
}

}  // namespace ember::python
