// ember.Generator, the default generator's seeds and state (ember.manual_seed,
// ember.get_rng_state, ...), and the random samplers that take generator=:
// Tensor.uniform_/normal_/random_/bernoulli_/exponential_/cauchy_/log_normal_/geometric_,
// ember.bernoulli, ember.normal and ember.multinomial.
// (ember.rand, randn, randint and randperm are bound with the factories.)
#include "bindings.h"

namespace ember::python {

Generator* generator_from(py::handle obj) {
  if (obj.is_none()) return nullptr;
  if (!py::isinstance<Generator>(obj))
    throw TypeError(detail::str("generator must be an ember.Generator, got ",
                                std::string(py::str(py::type::handle_of(obj).attr("__name__")))));
  return &obj.cast<Generator&>();
}

Generator* pop_generator(py::kwargs& kw) {
  if (!kw.contains("generator")) return nullptr;
  return generator_from(kw.attr("pop")("generator"));
}

namespace {

// A seed as PyTorch takes it: any integer (numpy's too) in [-2^63, 2^64);
// negative ones are taken modulo 2^64. Anything else is a RuntimeError, as
// Generator.manual_seed raises.
uint64_t seed_from(py::handle obj) {
  if (!PyIndex_Check(obj.ptr()))
    throw Error(detail::str("manual_seed expected a long, but got ",
                                std::string(py::str(py::type::handle_of(obj).attr("__name__")))));
  py::int_ seed = py::reinterpret_steal<py::int_>(PyNumber_Index(obj.ptr()));
  if (!seed) throw py::error_already_set();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(seed.ptr(), &overflow);
  if (!overflow) return static_cast<uint64_t>(v);
  unsigned long long u = PyLong_AsUnsignedLongLong(seed.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw Error("manual_seed: overflow: the seed must be an integer in [-2**63, 2**64), got " +
                std::string(py::str(seed)));
  }
  return u;
}

// Tensor.random_(to), random_(from, to), random_(from=, to=), random_(): the forms
// of PyTorch's overloads; to=None means up to the dtype's bound.
Tensor random_any(Tensor& self, py::args args, py::kwargs kw) {
  Generator* g = pop_generator(kw);
  std::vector<py::object> pos;
  for (const py::handle& a : args) pos.push_back(py::reinterpret_borrow<py::object>(a));
  std::optional<py::object> from, to;
  if (kw.contains("from")) from = kw.attr("pop")("from");
  if (kw.contains("to")) to = kw.attr("pop")("to");
  if (!kw.empty())
    throw TypeError(detail::str("random_() got an unexpected keyword argument '",
                                std::string(py::str(kw.begin()->first)), "'"));
  if (pos.size() > 2 || (pos.size() == 2 && (from || to)) || (pos.size() == 1 && from && to))
    throw TypeError("random_() expects (to), (from, to) or keywords from=, to=");
  if (pos.size() == 2) {
    from = pos[0];
    to = pos[1];
  } else if (pos.size() == 1) {
    if (to) from = pos[0];       // random_(2, to=10)
    else if (from) to = pos[0];  // random_(10, from=2): unusual but unambiguous
    else return self.random_(pos[0].cast<int64_t>(), g);
  }
  if (!from && !to) return self.random_(g);
  std::optional<int64_t> hi;
  if (to && !to->is_none()) hi = to->cast<int64_t>();
  return self.random_(from ? from->cast<int64_t>() : 0, hi, g);
}

}  // namespace

void bind_random(py::module_& m, TensorClass& cls) {
  py::class_<Generator>(m, "Generator")
      .def(py::init([](py::object device) {
        return new Generator(Generator::kDefaultSeed, device_from(device));
      }), py::arg("device") = "cpu")
      .def_property_readonly("device", &Generator::device)
      .def("manual_seed", [](py::object self, py::handle seed) {
        self.cast<Generator&>().manual_seed(seed_from(seed));
        return self;
      }, py::arg("seed"))
      .def("seed", &Generator::seed)
      .def("initial_seed", &Generator::initial_seed)
      .def("get_state", [](const Generator& g) { return g.get_state(); })
      .def("set_state", [](py::object self, const Tensor& state) {
        self.cast<Generator&>().set_state(state);
        return self;
      }, py::arg("new_state"))
      // pickle and copy.deepcopy: the device and the state.
      .def(py::pickle(
          [](const Generator& g) { return py::make_tuple(g.device(), g.get_state()); },
          [](const py::tuple& t) {
            if (t.size() != 2) throw ValueError("Generator: invalid pickled state");
            auto g = std::make_unique<Generator>(Generator::kDefaultSeed, t[0].cast<Device>());
            g->set_state(t[1].cast<Tensor>());
            return g;
          }));
  m.attr("default_generator") = py::cast(&default_generator(), py::return_value_policy::reference);

  // The default generator of a device (ember.cuda.manual_seed and friends use it).
  m.def("_default_generator", [](const Device& d) -> Generator& { return default_generator(d); },
        py::arg("device"), py::return_value_policy::reference);
  // torch.manual_seed converts its argument with int() first: "3" and 1.5 are seeds,
  // "a" is a ValueError and None a TypeError, both raised by int() itself.
  m.def("manual_seed", [](py::handle s) -> Generator& {
          py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Long(s.ptr()));
          if (!as_int) throw py::error_already_set();
          return manual_seed(seed_from(as_int));
        },
        py::arg("seed"), py::return_value_policy::reference);
  m.def("initial_seed", []() { return initial_seed(); });
  m.def("seed", []() { return seed(); });
  m.def("get_rng_state", &get_rng_state);
  m.def("set_rng_state", &set_rng_state, py::arg("new_state"));

  cls.def("uniform_", [](Tensor& t, double from, double to, py::object g) -> Tensor {
        return t.uniform_(from, to, generator_from(g));
      }, py::arg("from") = 0.0, py::arg("to") = 1.0, py::kw_only(), py::arg("generator") = py::none())
      .def("normal_", [](Tensor& t, double mean, double std, py::object g) -> Tensor {
        return t.normal_(mean, std, generator_from(g));
      }, py::arg("mean") = 0.0, py::arg("std") = 1.0, py::kw_only(), py::arg("generator") = py::none())
      .def("random_", [](Tensor& t, py::args a, py::kwargs kw) -> Tensor { return random_any(t, a, kw); })
      .def("bernoulli_", [](Tensor& t, const Tensor& p, py::object g) -> Tensor {
        return t.bernoulli_(p, generator_from(g));
      }, py::arg("p"), py::kw_only(), py::arg("generator") = py::none())
      .def("bernoulli_", [](Tensor& t, double p, py::object g) -> Tensor {
        return t.bernoulli_(p, generator_from(g));
      }, py::arg("p") = 0.5, py::kw_only(), py::arg("generator") = py::none())
      .def("bernoulli", [](const Tensor& t, py::object g) { return t.bernoulli(generator_from(g)); },
           py::kw_only(), py::arg("generator") = py::none())
      .def("bernoulli", [](const Tensor& t, double p, py::object g) { return t.bernoulli(p, generator_from(g)); },
           py::arg("p"), py::kw_only(), py::arg("generator") = py::none())
      .def("multinomial", [](const Tensor& t, int64_t n, bool replacement, py::object g) {
        return t.multinomial(n, replacement, generator_from(g));
      }, py::arg("num_samples"), py::arg("replacement") = false, py::kw_only(),
         py::arg("generator") = py::none())
      .def("exponential_", [](Tensor& t, double lambd, py::object g) -> Tensor {
        return t.exponential_(lambd, generator_from(g));
      }, py::arg("lambd") = 1.0, py::kw_only(), py::arg("generator") = py::none())
      .def("cauchy_", [](Tensor& t, double median, double sigma, py::object g) -> Tensor {
        return t.cauchy_(median, sigma, generator_from(g));
      }, py::arg("median") = 0.0, py::arg("sigma") = 1.0, py::kw_only(),
         py::arg("generator") = py::none())
      .def("log_normal_", [](Tensor& t, double mean, double std, py::object g) -> Tensor {
        return t.log_normal_(mean, std, generator_from(g));
      }, py::arg("mean") = 1.0, py::arg("std") = 2.0, py::kw_only(), py::arg("generator") = py::none())
      .def("geometric_", [](Tensor& t, double p, py::object g) -> Tensor {
        return t.geometric_(p, generator_from(g));
      }, py::arg("p"), py::kw_only(), py::arg("generator") = py::none());

  m.def("multinomial", [](const Tensor& t, int64_t n, bool replacement, py::object g) {
    return multinomial(t, n, replacement, generator_from(g));
  }, py::arg("input"), py::arg("num_samples"), py::arg("replacement") = false, py::kw_only(),
     py::arg("generator") = py::none());

  m.def("bernoulli", [](const Tensor& t, py::object g) { return bernoulli(t, generator_from(g)); },
        py::arg("input"), py::kw_only(), py::arg("generator") = py::none());
  m.def("bernoulli", [](const Tensor& t, double p, py::object g) { return bernoulli(t, p, generator_from(g)); },
        py::arg("input"), py::arg("p"), py::kw_only(), py::arg("generator") = py::none());
  m.def("normal", [](const Tensor& mean, const Tensor& std, py::object g) {
    return normal(mean, std, generator_from(g));
  }, py::arg("mean"), py::arg("std"), py::kw_only(), py::arg("generator") = py::none());
  m.def("normal", [](const Tensor& mean, double std, py::object g) {
    return normal(mean, std, generator_from(g));
  }, py::arg("mean"), py::arg("std") = 1.0, py::kw_only(), py::arg("generator") = py::none());
  m.def("normal", [](double mean, const Tensor& std, py::object g) {
    return normal(mean, std, generator_from(g));
  }, py::arg("mean"), py::arg("std"), py::kw_only(), py::arg("generator") = py::none());
  m.def("normal", [](double mean, double std, const IntList& size, py::kwargs kw) {
    Generator* g = pop_generator(kw);
    return normal(mean, std, size, g, options_from(kw, "normal"));
  }, py::arg("mean"), py::arg("std"), py::arg("size"));
}

}  // namespace ember::python
