// class ember.Tensor: geometry, conversions and views. Op methods are added
// by the group files (elementwise.cpp, reduce.cpp, ...).
#include "bindings.h"

namespace ember::python {
Tensor view_as_dtype(const Tensor& t, DType dtype);  // storage_bindings.cpp
}

namespace ember::python {

Tensor wrap_number(const Scalar& value) { return wrapped_scalar(value); }

IntList shape_from_args(const py::args& args, const char* op) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr()) && !PyIndex_Check(args[0].ptr())) {
    try {
      return args[0].cast<IntList>();
    } catch (const py::cast_error&) {
      throw TypeError(detail::str(op, ": expected a sequence of ints as the shape, got ",
                                  std::string(py::str(py::type::handle_of(args[0]).attr("__name__")))));
    }
  }
  IntList shape;
  for (const py::handle& a : args) {
    if (!PyIndex_Check(a.ptr()) || PyBool_Check(a.ptr()))
      throw TypeError(detail::str(op, ": expected ints as sizes, got ",
                                  std::string(py::str(py::type::handle_of(a).attr("__name__")))));
    shape.push_back(a.cast<int64_t>());
  }
  return shape;
}

namespace {

// x.view() with no shape at all: PyTorch's argument parser says the shape is missing.
// (Bound as a zero-argument overload ahead of the varargs one.)
[[noreturn]] void missing_shape(const char* op) {
  throw TypeError(detail::str(op, "() missing 1 required positional arguments: \"shape\""));
}

// The value of a one-element tensor for float(t) and int(t): PyTorch raises ValueError
// (not item()'s RuntimeError) for any other size.
Scalar one_element(const Tensor& t) {
  if (t.numel() != 1) throw ValueError("only one element tensors can be converted to Python scalars");
  return t.item();
}


py::tuple dims_tuple(const DimVector& v) {
  py::tuple t(v.size());
  for (size_t i = 0; i < v.size(); ++i) t[i] = py::int_(v[i]);
  return t;
}

// Tensor.to(...) accepts (dtype), (device), (device, dtype), (tensor) and keywords.
Tensor to_any(const Tensor& self, const py::args& args, const py::kwargs& kwargs) {
  std::optional<Device> device;
  std::optional<DType> dtype;
  bool non_blocking = false, copy = false;
  for (const py::handle& a : args) {
    const bool is_device = py::isinstance<Device>(a) || py::isinstance<py::str>(a) ||
                           (PyLong_Check(a.ptr()) && !PyBool_Check(a.ptr()));
    // PyTorch's forms put the device before the dtype: to(torch.float64, "cpu") matches none.
    if (is_device && dtype)
      throw TypeError(detail::str("to() received an invalid combination of arguments: a device (",
                                  std::string(py::str(a)), ") after the dtype"));
    if (py::isinstance<DType>(a)) dtype = a.cast<DType>();
    else if (PyLong_Check(a.ptr()) && !PyBool_Check(a.ptr()))
      device = Device("cuda:" + std::to_string(a.cast<int64_t>()));  // an int is a CUDA device index
    else if (is_device) device = device_from(a);
    else if (is_tensor(a)) {
      const Tensor& o = tensor_ref(a);
      device = o.device();
      dtype = o.dtype();
    } else if (PyBool_Check(a.ptr())) {
      non_blocking = a.cast<bool>();
    } else {
      throw TypeError(detail::str("to() received an invalid combination of arguments: ",
                                  std::string(py::str(py::type::handle_of(a).attr("__name__")))));
    }
  }
  for (auto [k, v] : kwargs) {
    std::string key = py::str(k);
    if (key == "dtype") dtype = v.cast<DType>();
    else if (key == "device") device = device_from(v);
    else if (key == "non_blocking") non_blocking = v.cast<bool>();
    else if (key == "copy") copy = v.cast<bool>();
    else throw TypeError("to() got an unexpected keyword argument '" + key + "'");
  }
  return to(self, device, dtype, non_blocking, copy);
}

// What Python subclasses of Tensor (nn.Parameter) need: a constructor from a tensor
// and the `data` property.
void bind_subclassing(TensorClass& cls) {
  // Tensor(data, requires_grad=False) is the type's tp_init (tensor_object.cpp):
  // pybind11 binds __init__ only for its own classes.

  // t.data: a detached alias. Assigning re-points this Python object (and every
  // reference to it, e.g. a Parameter held by a Module and an optimizer) at the new
  // data, keeping requires_grad; the old grad is dropped when it no longer fits.
  cls.def_property("data", [](const Tensor& t) { return t.detach(); },
                   [](Tensor& self, const Tensor& data) {
    bool requires_grad = self.requires_grad();
    Tensor grad = self.grad();
    Tensor alias = data.detach();
    alias.requires_grad_(requires_grad);
    if (grad.defined() && grad.sizes() == alias.sizes() && grad.dtype() == alias.dtype() &&
        grad.device() == alias.device())
      alias.set_grad(grad);
    self = std::move(alias);
  });
}

}  // namespace

TensorClass bind_tensor(py::module_& m) {
  TensorClass cls(m);
  cls.def_property_readonly("_shape", [](const Tensor& t) { return dims_tuple(t.sizes()); })
      .def("_size", [](const Tensor& t) { return dims_tuple(t.sizes()); })
      .def("_size", [](const Tensor& t, int64_t d) { return t.size(d); })
      .def("stride", [](const Tensor& t) { return dims_tuple(t.strides()); })
      .def("stride", [](const Tensor& t, int64_t d) { return t.stride(d); })
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def_property_readonly("ndim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("device", &Tensor::device)
      .def_property_readonly("is_cuda", &Tensor::is_cuda)
      .def_property_readonly("is_cpu", &Tensor::is_cpu)
      .def("is_floating_point", &Tensor::is_floating_point)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("storage_offset", &Tensor::storage_offset)
      .def("element_size", &Tensor::element_size)
      .def_property_readonly("itemsize", &Tensor::element_size)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def_property_readonly("_version", &Tensor::version)
      .def("_is_view_of", [](const Tensor& a, const Tensor& b) {
        return a.impl()->storage() == b.impl()->storage();
      })
      .def("item", [](const Tensor& t) { return t.item(); })
      .def("__len__", [](const Tensor& t) {
        if (t.dim() == 0) throw py::type_error("len() of a 0-d tensor");
        return t.size(0);
      })
      .def("__bool__", [](const Tensor& t) {
        EMBER_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
        return t.item().to_bool();
      })
      .def("__float__", [](const Tensor& t) { return one_element(t).to_double(); })
      .def("__int__", [](const Tensor& t) { return one_element(t).to_int(); })
      .def("__contains__", [](const Tensor& t, py::handle element) {
        bool number = PyLong_Check(element.ptr()) || PyFloat_Check(element.ptr()) ||
                      PyBool_Check(element.ptr());
        if (!number && !is_tensor(element))
          throw Error("Tensor.__contains__ only supports Tensor or scalar, but you passed in a " +
                      std::string(py::str(py::type::handle_of(element))) + ".");
        DType dt = PyBool_Check(element.ptr()) ? kBool : PyLong_Check(element.ptr()) ? kInt64 : kFloat64;
        Tensor other = number ? scalar_tensor(element.cast<Scalar>(), TensorOptions(dt).device(t.device()))
                              : element.cast<Tensor>();
        return any(eq(t, other)).item<bool>();
      })
      .def("__index__", [](const Tensor& t) {
        EMBER_CHECK_TYPE(!t.is_floating_point() && t.dtype() != kBool && t.numel() == 1,
                         "only integer tensors of a single element can be converted to an index");
        return t.item().to_int();
      })
      // views
      .def("view", [](const Tensor& t, py::args a) {
        if (a.size() == 1 && py::isinstance<DType>(a[0])) return view_as_dtype(t, a[0].cast<DType>());
        return t.view(shape_from_args(a, "view"));
      })
      .def("view", [](const Tensor& t, DType dtype) { return view_as_dtype(t, dtype); }, py::kw_only(),
           py::arg("dtype"))
      .def("reshape", [](const Tensor& t, py::args a) { return t.reshape(shape_from_args(a, "reshape")); })
      .def("expand", [](const Tensor& t, py::args a) { return t.expand(shape_from_args(a, "expand")); })
      .def("permute", [](const Tensor& t, py::args a) { return t.permute(shape_from_args(a, "permute")); })
      .def("view", [](const Tensor&) { missing_shape("view"); }, py::prepend())
      .def("reshape", [](const Tensor&) { missing_shape("reshape"); }, py::prepend())
      .def("expand", [](const Tensor&) { missing_shape("expand"); }, py::prepend())
      .def("permute", [](const Tensor&) { missing_shape("permute"); }, py::prepend())
      .def("view_as", &Tensor::view_as)
      .def("reshape_as", &Tensor::reshape_as)
      .def("expand_as", &Tensor::expand_as)
      .def("transpose", &Tensor::transpose)
      .def("swapaxes", &Tensor::transpose)
      .def("swapdims", &Tensor::transpose)
      .def("t", &Tensor::t)
      .def_property_readonly("T", [](const Tensor& t) {
        IntList dims;
        for (int64_t d = t.dim() - 1; d >= 0; --d) dims.push_back(d);
        return t.permute(dims);
      })
      // A 0-d tensor is its own matrix transpose in PyTorch (a 1-d one is an error).
      .def_property_readonly("mT", [](const Tensor& t) { return t.dim() == 0 ? alias(t) : t.mT(); })
      .def("squeeze", [](const Tensor& t) { return t.squeeze(); })
      .def("squeeze", [](const Tensor& t, int64_t d) { return t.squeeze(d); }, py::arg("dim"))
      .def("squeeze", [](const Tensor& t, const IntList& dims) {
        Tensor r = t;
        std::vector<int64_t> wrapped;
        for (int64_t d : dims) wrapped.push_back(wrap_dim(d, t.dim(), "squeeze"));
        std::sort(wrapped.rbegin(), wrapped.rend());
        for (int64_t d : wrapped) r = r.squeeze(d);
        return r;
      }, py::arg("dim"))
      // x.squeeze(0, 2): PyTorch also takes the dims as varargs.
      .def("squeeze", [](const Tensor& t, py::args dims) {
        Tensor r = t;
        std::vector<int64_t> wrapped;
        for (py::handle d : dims) {
          if (!PyIndex_Check(d.ptr()) || PyBool_Check(d.ptr()))
            throw TypeError(detail::str("squeeze(): argument 'dim' must be tuple of ints, but found element of type ",
                                        std::string(py::str(py::type::handle_of(d).attr("__name__")))));
          wrapped.push_back(wrap_dim(d.cast<int64_t>(), t.dim(), "squeeze"));
        }
        std::sort(wrapped.rbegin(), wrapped.rend());
        for (int64_t d : wrapped) r = r.squeeze(d);
        return r;
      })
      .def("unsqueeze", &Tensor::unsqueeze, py::arg("dim"))
      .def("flatten", &Tensor::flatten, py::arg("start_dim") = 0, py::arg("end_dim") = -1)
      .def("unflatten", &Tensor::unflatten, py::arg("dim"), py::arg("sizes"))
      .def("narrow", &Tensor::narrow, py::arg("dim"), py::arg("start"), py::arg("length"))
      .def("select", &Tensor::select, py::arg("dim"), py::arg("index"))
      .def("unbind", &Tensor::unbind, py::arg("dim") = 0)
      .def("as_strided", &Tensor::as_strided, py::arg("size"), py::arg("stride"),
           py::arg("storage_offset") = py::none())
      .def("movedim", &Tensor::movedim, py::arg("source"), py::arg("destination"))
      .def("moveaxis", &Tensor::movedim, py::arg("source"), py::arg("destination"))
      .def("unfold", &Tensor::unfold, py::arg("dimension"), py::arg("size"), py::arg("step"))
      // in-place views: the tensor itself becomes the view
      .def("t_", [](Tensor& t) -> Tensor { return t.t_(); })
      .def("transpose_", [](Tensor& t, int64_t d0, int64_t d1) -> Tensor { return t.transpose_(d0, d1); },
           py::arg("dim0"), py::arg("dim1"))
      .def("swapaxes_", [](Tensor& t, int64_t d0, int64_t d1) -> Tensor { return t.transpose_(d0, d1); },
           py::arg("axis0"), py::arg("axis1"))
      .def("swapdims_", [](Tensor& t, int64_t d0, int64_t d1) -> Tensor { return t.transpose_(d0, d1); },
           py::arg("dim0"), py::arg("dim1"))
      .def("squeeze_", [](Tensor& t) -> Tensor { return t.squeeze_(); })
      .def("squeeze_", [](Tensor& t, int64_t d) -> Tensor { return t.squeeze_(d); }, py::arg("dim"))
      .def("squeeze_", [](Tensor& t, const IntList& dims) -> Tensor { return squeeze_(t, dims); },
           py::arg("dim"))
      .def("unsqueeze_", [](Tensor& t, int64_t d) -> Tensor { return t.unsqueeze_(d); }, py::arg("dim"))
      .def("as_strided_", [](Tensor& t, const IntList& size, const IntList& stride,
                             std::optional<int64_t> offset) -> Tensor {
        return t.as_strided_(size, stride, offset);
      }, py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none())
      // (memory_format= is taken by the Python wrappers in ember/_memory_format.py)
      .def("resize_", [](Tensor& t, py::args a) -> Tensor { return t.resize_(shape_from_args(a, "resize_")); })
      .def("resize_as_", [](Tensor& t, const Tensor& other) -> Tensor { return t.resize_as_(other); },
           py::arg("the_template"))
      // copies and conversions
      // memory_format: None or ember.contiguous_format here; the other formats are strides
      // made in Python (ember/_layout.py), handed on by name.
      .def("contiguous", [](const Tensor& t, py::handle memory_format) -> py::object {
        if (memory_format.is_none() ||
            (py::hasattr(memory_format, "_name") &&
             std::string(py::str(memory_format.attr("_name"))) == "contiguous_format"))
          return py::cast(t.contiguous());
        return py::module_::import("ember._layout").attr("_contiguous_as")(t, memory_format);
      }, py::arg("memory_format") = py::none())
      .def("clone", &Tensor::clone)
      .def("detach", &Tensor::detach)
      .def("to", &to_any)
      .def("cpu", &Tensor::cpu)
      .def("type_as", [](const Tensor& t, const Tensor& o) { return t.to(o.dtype()); })
      .def("float", [](const Tensor& t) { return t.to(kFloat32); })
      .def("double", [](const Tensor& t) { return t.to(kFloat64); })
      .def("half", [](const Tensor& t) { return t.to(kFloat16); })
      .def("bfloat16", [](const Tensor& t) { return t.to(kBFloat16); })
      .def("int", [](const Tensor& t) { return t.to(kInt32); })
      .def("long", [](const Tensor& t) { return t.to(kInt64); })
      .def("short", [](const Tensor& t) { return t.to(kInt16); })
      .def("char", [](const Tensor& t) { return t.to(kInt8); })
      .def("byte", [](const Tensor& t) { return t.to(kUInt8); })
      .def("bool", [](const Tensor& t) { return t.to(kBool); })
      .def("copy_", [](Tensor& t, const Tensor& src, bool nb) -> Tensor { return t.copy_(src, nb); },
           py::arg("src"), py::arg("non_blocking") = false)
      // x.copy_(5): PyTorch takes a Python number as a source (a wrapped 0-d tensor).
      .def("copy_", [](Tensor& t, const Scalar& src, bool nb) -> Tensor {
             return t.copy_(wrap_number(src), nb);
           }, py::arg("src"), py::arg("non_blocking") = false)
      .def("fill_", [](Tensor& t, const Scalar& v) -> Tensor { return t.fill_(v); })
      .def("fill_", [](Tensor& t, const Tensor& v) -> Tensor {
        EMBER_CHECK(v.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ",
                    v.dim(), " dimensions.");
        // A value that requires grad is copied (broadcast), so its gradient flows.
        return v.requires_grad() ? t.copy_(v) : t.fill_(v.item());
      })
      .def("zero_", [](Tensor& t) -> Tensor { return t.zero_(); })
      .def("_str_cpp", &Tensor::str);
  bind_subclassing(cls);
  return cls;
}

}  // namespace ember::python
