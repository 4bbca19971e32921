// ember.zeros, ember.arange, ember.randn, ... : shapes given as varargs or one
// sequence, plus dtype=, device=, requires_grad= (and generator= for the random
// ones) as in PyTorch.
#include "bindings.h"

namespace ember::python {

TensorOptions options_from(const py::kwargs& kw, const char* op) {
  TensorOptions o;
  for (auto [k, v] : kw) {
    std::string key = py::str(k);
    if (key == "dtype") {
      if (!v.is_none()) o = o.dtype(v.cast<DType>());
    } else if (key == "device") {
      if (!v.is_none()) o = o.device(device_from(v));
    } else if (key == "requires_grad") {
      o = o.requires_grad(v.cast<bool>());
    } else if (key == "layout" || key == "memory_format") {
      // ember.strided (the only layout) and the row-major formats are what every factory
      // makes; another ember layout object is unsupported; anything else is the wrong type.
      if (v.is_none()) continue;
      py::module_ ember_module = py::module_::import("ember");
      const char* kind = key == "layout" ? "layout" : "memory_format";
      if (!py::isinstance(v, ember_module.attr(kind)))
        throw TypeError(detail::str(op, "(): argument '", key, "' must be ember.", kind, ", not ",
                                    std::string(py::str(py::type::handle_of(v).attr("__name__")))));
      const bool dense = key == "layout" ? v.is(ember_module.attr("strided"))
                                         : v.is(ember_module.attr("contiguous_format")) ||
                                               v.is(ember_module.attr("preserve_format"));
      if (!dense)
        throw NotImplementedError(detail::str(op, ": argument '", key, "' = ", std::string(py::str(v)),
                                              " is not supported"));
    } else if (key == "pin_memory" || key == "out") {
      if (!v.is_none() && !(key == "pin_memory" && !v.cast<bool>()))
        throw NotImplementedError(detail::str(op, ": argument '", key, "' is not supported"));
    } else {
      throw TypeError(detail::str(op, "() got an unexpected keyword argument '", key, "'"));
    }
  }
  return o;
}

namespace {

IntList shape_from(const py::args& args, py::kwargs& kw, const char* op) {
  if (kw.contains("size")) return py::object(kw.attr("pop")("size")).cast<IntList>();
  // zeros() is torch's TypeError; a 0-dim tensor is zeros(()) or zeros([]).
  if (args.empty()) throw TypeError(detail::str(op, "() missing 1 required positional arguments: \"size\""));
  return shape_from_args(args, op);
}

template <typename F>
void def_shape_factory(py::module_& m, const char* name, F make) {
  m.def(name, [make, name](py::args args, py::kwargs kw) {
    IntList shape = shape_from(args, kw, name);
    return make(shape, options_from(kw, name));
  });
}

template <typename F>
void def_like_factory(py::module_& m, const char* name, F make) {
  m.def(name, [make, name](const Tensor& like, py::kwargs kw) { return make(like, options_from(kw, name)); });
}

}  // namespace

void bind_factories(py::module_& m) {
  def_shape_factory(m, "empty", [](const IntList& s, TensorOptions o) { return empty(s, o); });
  def_shape_factory(m, "zeros", [](const IntList& s, TensorOptions o) { return zeros(s, o); });
  def_shape_factory(m, "ones", [](const IntList& s, TensorOptions o) { return ones(s, o); });
  m.def("rand", [](py::args args, py::kwargs kw) {
    IntList shape = shape_from(args, kw, "rand");
    Generator* g = pop_generator(kw);
    return rand(shape, g, options_from(kw, "rand"));
  });
  m.def("randn", [](py::args args, py::kwargs kw) {
    IntList shape = shape_from(args, kw, "randn");
    Generator* g = pop_generator(kw);
    return randn(shape, g, options_from(kw, "randn"));
  });
  def_like_factory(m, "empty_like", [](const Tensor& t, TensorOptions o) { return empty_like(t, o); });
  def_like_factory(m, "zeros_like", [](const Tensor& t, TensorOptions o) { return zeros_like(t, o); });
  def_like_factory(m, "ones_like", [](const Tensor& t, TensorOptions o) { return ones_like(t, o); });
  def_like_factory(m, "rand_like", [](const Tensor& t, TensorOptions o) { return rand_like(t, o); });
  def_like_factory(m, "randn_like", [](const Tensor& t, TensorOptions o) { return randn_like(t, o); });
  m.def("full", [](const IntList& size, const Scalar& v, py::kwargs kw) {
    return full(size, v, options_from(kw, "full"));
  }, py::arg("size"), py::arg("fill_value"));
  m.def("full_like", [](const Tensor& t, const Scalar& v, py::kwargs kw) {
    return full_like(t, v, options_from(kw, "full_like"));
  }, py::arg("input"), py::arg("fill_value"));
  m.def("empty_strided", [](const IntList& size, const IntList& stride, py::kwargs kw) {
    return empty_strided(size, stride, options_from(kw, "empty_strided"));
  });
  m.def("arange", [](py::args args, py::kwargs kw) {
    std::vector<Scalar> v;
    for (const py::handle& a : args) v.push_back(a.cast<Scalar>());
    if (kw.contains("start")) v.insert(v.begin(), py::object(kw.attr("pop")("start")).cast<Scalar>());
    if (kw.contains("end")) v.push_back(py::object(kw.attr("pop")("end")).cast<Scalar>());
    if (kw.contains("step")) v.push_back(py::object(kw.attr("pop")("step")).cast<Scalar>());
    TensorOptions o = options_from(kw, "arange");
    if (v.size() == 1) return arange(v[0], o);
    if (v.size() == 2) return arange(v[0], v[1], 1, o);
    if (v.size() == 3) return arange(v[0], v[1], v[2], o);
    throw TypeError("arange() takes 1 to 3 positional arguments (start, end, step)");
  });
  m.def("linspace", [](const Scalar& s, const Scalar& e, int64_t steps, py::kwargs kw) {
    return linspace(s, e, steps, options_from(kw, "linspace"));
  }, py::arg("start"), py::arg("end"), py::arg("steps"));
  m.def("eye", [](int64_t n, std::optional<int64_t> mcols, py::kwargs kw) {
    return eye(n, mcols, options_from(kw, "eye"));
  }, py::arg("n"), py::arg("m") = py::none());
  m.def("randint", [](py::args args, py::kwargs kw) {
    // randint(high, size) or randint(low, high, size); size may be a keyword.
    std::vector<py::handle> pos(args.begin(), args.end());
    IntList size;
    if (kw.contains("size")) {
      size = py::object(kw.attr("pop")("size")).cast<IntList>();
    } else {
      if (pos.empty()) throw TypeError("randint() missing required argument 'size'");
      size = pos.back().cast<IntList>();
      pos.pop_back();
    }
    if (kw.contains("low")) pos.insert(pos.begin(), py::object(kw.attr("pop")("low")).release());
    if (kw.contains("high")) pos.push_back(py::object(kw.attr("pop")("high")).release());
    Generator* g = pop_generator(kw);
    if (pos.size() == 1) return randint(pos[0].cast<int64_t>(), size, g, options_from(kw, "randint"));
    if (pos.size() == 2)
      return randint(pos[0].cast<int64_t>(), pos[1].cast<int64_t>(), size, g, options_from(kw, "randint"));
    throw TypeError("randint() expects (high, size) or (low, high, size)");
  });
  m.def("randperm", [](int64_t n, py::kwargs kw) {
    Generator* g = pop_generator(kw);
    return randperm(n, g, options_from(kw, "randperm"));
  }, py::arg("n"));
  m.def("scalar_tensor", [](const Scalar& v, py::kwargs kw) {
    return scalar_tensor(v, options_from(kw, "scalar_tensor"));
  });
  m.def("_wrap_number", &wrap_number);
}

}  // namespace ember::python
