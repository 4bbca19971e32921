// Python bindings of the interop group: ember.Size and Tensor.shape, the numpy
// and DLPack exchange, ember.tensor, and Tensor's Python protocols (iteration,
// hashing, pickling, copying, the requires_grad flag). The work is in size.cpp,
// numpy_interop.cpp, dlpack.cpp and tensor_new.cpp.
#include <cstring>
#include <limits>

#include "interop.h"

namespace ember::python {

namespace {

void set_requires_grad(Tensor& t, bool requires_grad) { t.requires_grad_(requires_grad); }

// Pickling: ember._rebuild_tensor(bytes, dtype name, shape[, requires_grad]).
// Loading runs no code but this function, which checks everything it is given.
py::tuple reduce_tensor(const Tensor& self) {
  static py::handle rebuild = py::object(py::module_::import("ember").attr("_rebuild_tensor")).release();
  Tensor t = self.cpu().contiguous();
  py::bytes data(static_cast<const char*>(t.data_ptr()), static_cast<size_t>(t.nbytes()));
  py::tuple shape(py::cast(IntList(t.sizes().begin(), t.sizes().end())));
  py::tuple args = self.requires_grad()
                       ? py::tuple(py::make_tuple(data, dtype_name(t.dtype()), shape, true))
                       : py::tuple(py::make_tuple(data, dtype_name(t.dtype()), shape));
  return py::make_tuple(rebuild, args);
}

Tensor tensor_from_bytes(py::handle data, const std::string& dtype_str, py::handle shape_obj,
                         bool requires_grad) {
  EMBER_CHECK_TYPE(PyBytes_Check(data.ptr()), "_rebuild_tensor: expected bytes, got ",
                   Py_TYPE(data.ptr())->tp_name);
  DType dtype = dtype_from_name(dtype_str);
  IntList shape;
  try {
    shape = shape_obj.cast<IntList>();
  } catch (const py::cast_error&) {
    throw TypeError("_rebuild_tensor: the shape must be a sequence of ints");
  }
  // The byte count is checked before anything is allocated: a crafted shape must
  // not make ember reserve memory the data does not back.
  DimVector sizes(shape.begin(), shape.end());
  int64_t numel = 1;
  for (int64_t s : shape) {
    EMBER_CHECK(s >= 0, "_rebuild_tensor: trying to create a tensor with negative dimension ", s,
                ": ", shape_str(sizes));
    numel = s == 0 || numel <= std::numeric_limits<int64_t>::max() / 16 / s ? numel * s : -1;
    EMBER_CHECK_VALUE(numel >= 0, "_rebuild_tensor: shape ", shape_str(sizes), " is too large");
  }
  auto n = static_cast<size_t>(PyBytes_GET_SIZE(data.ptr()));
  EMBER_CHECK_VALUE(n == static_cast<size_t>(numel) * itemsize(dtype), "_rebuild_tensor: ", n,
                    " bytes do not make a tensor of shape ", shape_str(sizes), " and dtype ",
                    dtype_name(dtype));
  Tensor t = empty(shape, TensorOptions(dtype));
  const char* src = PyBytes_AS_STRING(data.ptr());
  if (dtype == kBool)  // any byte but 0 or 1 would be an invalid bool
    for (size_t i = 0; i < n; ++i)
      EMBER_CHECK_VALUE(src[i] == 0 || src[i] == 1, "_rebuild_tensor: bad bool value");
  if (n) std::memcpy(t.data_ptr(), src, n);
  set_requires_grad(t, requires_grad);
  return t;
}

}  // namespace

void bind_interop(py::module_& m, TensorClass& cls) {
  bind_size(m);

  // ---- geometry as ember.Size ---------------------------------------------------
  cls.def_property_readonly("shape", [](const Tensor& t) { return make_size(t.sizes()); })
      .def("size", [](const Tensor& t) { return make_size(t.sizes()); })
      .def("size", [](const Tensor& t, int64_t dim) { return t.size(dim); }, py::arg("dim"));

  // ---- numpy ----------------------------------------------------------------------
  cls.def("numpy", &tensor_to_numpy, py::kw_only(), py::arg("force") = false)
      .def("__array__", &tensor_array, py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("tolist", &tensor_tolist);
  cls.attr("__array_priority__") = 1000;  // numpy defers binary operators to ember
  m.def("from_numpy", &tensor_from_numpy, py::arg("ndarray"));

  // ---- DLPack ---------------------------------------------------------------------
  cls.def("__dlpack__", [](const Tensor& t, py::handle stream, py::handle max_version,
                           py::handle dl_device, py::handle copy) {
        make_consumer_stream_wait(t, stream);
        return tensor_to_dlpack(t, max_version, dl_device, copy);
      }, py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
      py::arg("dl_device") = py::none(), py::arg("copy") = py::none())
      .def("__dlpack_device__", &tensor_dlpack_device);
  m.def("from_dlpack", &tensor_from_dlpack, py::arg("ext_tensor"));

  // ---- construction from Python data ------------------------------------------------
  m.def("tensor", [](py::handle data, std::optional<DType> dtype, py::handle device,
                     bool requires_grad) {
    return tensor_from_data(data, dtype, device_arg(device), requires_grad);
  }, py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def("as_tensor", [](py::handle data, std::optional<DType> dtype, py::handle device) {
    return as_tensor(data, dtype, device_arg(device));
  }, py::arg("data"), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def("is_tensor", [](py::handle obj) { return is_tensor(obj); }, py::arg("obj"));
  m.def("is_floating_point", [](const Tensor& t) { return t.is_floating_point(); }, py::arg("input"));
  m.def("numel", [](const Tensor& t) { return t.numel(); }, py::arg("input"));


  // ---- Python protocols ---------------------------------------------------------------
  cls.def("__iter__", [](const Tensor& t) {
        if (t.dim() == 0) throw py::type_error("iteration over a 0-d tensor");
        return py::iter(py::cast(t.unbind(0)));
      })
      .def("__hash__", [](py::handle self) {  // identity, as for any Python object
        return static_cast<Py_ssize_t>(reinterpret_cast<uintptr_t>(self.ptr()) >> 4);
      })
      .def("__reduce_ex__", [](const Tensor& t, int) { return reduce_tensor(t); })
      .def("__copy__", [](const Tensor& t) {  // like torch: a new tensor sharing the memory
        Tensor a = alias(t);
        a.impl()->requires_grad = t.requires_grad();
        return a;
      })
      .def("__deepcopy__", [](py::handle self, py::dict memo) {
        const Tensor& t = tensor_ref(self);
        Tensor c = t.clone();
        c.impl()->requires_grad = t.requires_grad();
        py::object result = py::cast(c);
        memo[py::int_(reinterpret_cast<uintptr_t>(self.ptr()))] = result;
        return result;
      }, py::arg("memo"));
  m.def("_tensor_from_bytes", &tensor_from_bytes, py::arg("data"), py::arg("dtype"),
        py::arg("shape"), py::arg("requires_grad") = false);
}

}  // namespace ember::python
