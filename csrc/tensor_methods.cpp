// Tensor methods that make tensors like self (new_empty, new_zeros, new_ones,
// new_full, new_tensor: self's dtype and device unless given) and Tensor.type().
#include "bindings.h"

namespace ember::python {

namespace {

// dtype=/device=/requires_grad= with self's dtype and device as the defaults.
TensorOptions like_self(const Tensor& self, const py::kwargs& kw, const char* op) {
  TensorOptions o = options_from(kw, op);
  if (!o.dtype_) o = o.dtype(self.dtype());
  if (!kw.contains("device") || kw["device"].is_none()) o = o.device(self.device());
  return o;
}

// The size of new_empty(2, 3), new_empty((2, 3)) or new_empty(size=(2, 3)).
IntList size_arg(const py::args& args, py::kwargs& kw, const char* op) {
  if (kw.contains("size")) {
    if (args.size() != 0) throw TypeError(detail::str(op, "() got multiple values for argument 'size'"));
    return py::object(kw.attr("pop")("size")).cast<IntList>();
  }
  return shape_from_args(args, op);
}

Tensor with_grad(Tensor t, const TensorOptions& o) {
  if (o.requires_grad_) t.requires_grad_(true);
  return t;
}

// The legacy type names: "ember.FloatTensor", "torch.cuda.LongTensor", ...
const std::pair<const char*, DType> kTypeNames[] = {
    {"Float", kFloat32}, {"Double", kFloat64}, {"Half", kFloat16}, {"BFloat16", kBFloat16},
    {"Byte", kUInt8},    {"Char", kInt8},      {"Short", kInt16},  {"Int", kInt32},
    {"Long", kInt64},    {"Bool", kBool}};

std::string type_string(const Tensor& t) {
  for (auto [name, dtype] : kTypeNames)
    if (dtype == t.dtype())
      return std::string(t.is_cuda() ? "ember.cuda." : "ember.") + name + "Tensor";
  return "ember.Tensor";
}

Tensor to_type_string(const Tensor& t, const std::string& s, bool non_blocking) {
  std::string rest = s;
  for (const char* prefix : {"ember.", "torch."})
    if (rest.rfind(prefix, 0) == 0) rest = rest.substr(std::string(prefix).size());
  bool cuda = rest.rfind("cuda.", 0) == 0;
  if (cuda) rest = rest.substr(5);
  for (auto [name, dtype] : kTypeNames)
    if (rest == std::string(name) + "Tensor" && rest.size() != s.size())
      return to(t, cuda ? std::optional<Device>(Device("cuda")) : std::optional<Device>(kCPU), dtype,
                non_blocking);
  throw ValueError("invalid type: '" + s + "'");
}

}  // namespace

void bind_tensor_methods(py::module_&, TensorClass& cls) {
  cls.def("new_empty", [](const Tensor& t, py::args a, py::kwargs kw) {
    IntList size = size_arg(a, kw, "new_empty");
    TensorOptions o = like_self(t, kw, "new_empty");
    return with_grad(empty(size, o.requires_grad(false)), o);
  });
  cls.def("new_zeros", [](const Tensor& t, py::args a, py::kwargs kw) {
    IntList size = size_arg(a, kw, "new_zeros");
    TensorOptions o = like_self(t, kw, "new_zeros");
    return with_grad(zeros(size, o.requires_grad(false)), o);
  });
  cls.def("new_ones", [](const Tensor& t, py::args a, py::kwargs kw) {
    IntList size = size_arg(a, kw, "new_ones");
    TensorOptions o = like_self(t, kw, "new_ones");
    return with_grad(ones(size, o.requires_grad(false)), o);
  });
  cls.def("new_full", [](const Tensor& t, py::handle size, const Scalar& fill, py::kwargs kw) {
    TensorOptions o = like_self(t, kw, "new_full");
    if (!py::isinstance<py::sequence>(size) || py::isinstance<py::str>(size))
      throw TypeError("new_full(): argument 'size' (position 1) must be tuple of ints, not " +
                      std::string(py::str(py::type::handle_of(size).attr("__name__"))));
    return with_grad(full(size.cast<IntList>(), fill, o.requires_grad(false)), o);
  }, py::arg("size"), py::arg("fill_value"));
  // new_tensor(data): a copy of data (detached when data is a tensor), as ember.tensor makes it.
  cls.def("new_tensor", [](const Tensor& t, py::handle data, py::kwargs kw) {
    TensorOptions o = like_self(t, kw, "new_tensor");
    py::object made = py::module_::import("ember").attr("tensor")(
        is_tensor(data) ? py::object(py::cast(data.cast<Tensor>().detach())) :
                                       py::reinterpret_borrow<py::object>(data),
        py::arg("dtype") = *o.dtype_, py::arg("device") = o.device_);
    return with_grad(made.cast<Tensor>(), o);
  }, py::arg("data"));
  cls.def("type", [](const Tensor& t, py::handle dtype, bool non_blocking, py::kwargs kw) -> py::object {
    for (auto [k, v] : kw) {
      std::string key = py::str(k);
      if (key != "async") throw TypeError("type() got an unexpected keyword argument '" + key + "'");
      non_blocking = v.cast<bool>();
    }
    if (dtype.is_none()) return py::str(type_string(t));
    if (py::isinstance<py::str>(dtype))
      return py::cast(to_type_string(t, dtype.cast<std::string>(), non_blocking));
    if (py::isinstance<DType>(dtype))
      return py::cast(to(t, std::nullopt, dtype.cast<DType>(), non_blocking));
    throw TypeError("type(): argument 'dtype' must be ember.dtype or str, not " +
                    std::string(py::str(py::type::handle_of(dtype).attr("__name__"))));
  }, py::arg("dtype") = py::none(), py::arg("non_blocking") = false);
}

}  // namespace ember::python
