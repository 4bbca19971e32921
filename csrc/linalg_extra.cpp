// Python bindings of the product and linear algebra composites
// (include/ember/ops/linalg_extra.h): ember.einsum, ember.tensordot, ember.cdist, ...,
// and ember._C._linalg, which python/ember/linalg.py re-exports as ember.linalg.
#include "bindings.h"
#include "reduce_bindings.h"

namespace ember::python {

namespace {

using OptTensor = std::optional<Tensor>;

// einsum's sublist form: einsum(op0, [0, 1], op1, [1, 2], [0, 2]); Ellipsis is "...".
std::string sublist_subscripts(py::handle list) {
  std::string s;
  for (py::handle item : py::reinterpret_borrow<py::sequence>(list)) {
    if (item.is(py::ellipsis())) {
      s += "...";
      continue;
    }
    int64_t v = item.cast<int64_t>();
    if (v < 0 || v >= 52)
      throw ValueError(detail::str("einsum(): subscript in subscript list is not within the valid range [0, 52)"));
    s += static_cast<char>(v < 26 ? 'A' + v : 'a' + v - 26);
  }
  return s;
}

Tensor einsum_py(const py::args& args) {
  if (args.size() < 2)
    throw ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                     "operand and its subscripts list");
  if (py::isinstance<py::str>(args[0])) {
    std::string eq = args[0].cast<std::string>();
    TensorList ops;
    if (args.size() == 2 && !is_tensor(args[1])) ops = args[1].cast<TensorList>();
    else
      for (size_t i = 1; i < args.size(); ++i) ops.push_back(args[i].cast<Tensor>());
    return einsum(eq, ops);
  }
  TensorList ops;
  std::string eq;
  size_t i = 0;
  for (; i + 1 < args.size(); i += 2) {
    ops.push_back(args[i].cast<Tensor>());
    if (i) eq += ',';
    eq += sublist_subscripts(args[i + 1]);
  }
  if (i < args.size()) {
    eq += "->";
    eq += sublist_subscripts(args[i]);
  }
  return einsum(eq, ops);
}

Tensor tensordot_py(const Tensor& a, const Tensor& b, py::handle dims) {
  if (PyLong_Check(dims.ptr())) return tensordot(a, b, dims.cast<int64_t>());
  auto pair = dims.cast<std::vector<py::object>>();
  if (pair.size() != 2) throw Error("tensordot expects dims to be a pair of lists of dims");
  auto as_list = [](const py::object& o) {
    if (PyLong_Check(o.ptr())) return IntList{o.cast<int64_t>()};
    return o.cast<IntList>();
  };
  return tensordot(a, b, as_list(pair[0]), as_list(pair[1]));
}

void bind_products(py::module_& m, TensorClass& cls) {
  m.def("einsum", &einsum_py);
  m.def("tensordot", &tensordot_py, py::arg("a"), py::arg("b"), py::arg("dims") = 2);
  def_op(m, cls, "kron", &kron, py::arg("other"));
  def_op(m, cls, "trace", &trace);
  def_op(m, cls, "inner", &inner, py::arg("other"));
  def_op(m, cls, "vdot", &vdot, py::arg("other"));
  def_op(m, cls, "cross", [](const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
    if (!dim) {
      py::module_::import("warnings").attr("warn")(
          "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
          "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that "
          "of linalg.cross in a future release.", py::module_::import("builtins").attr("UserWarning"));
    }
    return cross(a, b, dim);
  }, py::arg("other"), py::arg("dim") = py::none());
  auto scales = std::make_tuple(py::kw_only(), py::arg("beta") = 1, py::arg("alpha") = 1);
  std::apply([&](const auto&... s) {
    def_op(m, cls, "addmv", &addmv, py::arg("mat"), py::arg("vec"), s...);
    def_op(m, cls, "addr", &addr, py::arg("vec1"), py::arg("vec2"), s...);
    def_op(m, cls, "baddbmm", &baddbmm, py::arg("batch1"), py::arg("batch2"), s...);
    def_op(m, cls, "addbmm", &addbmm, py::arg("batch1"), py::arg("batch2"), s...);
  }, scales);
  m.def("chain_matmul", [](const py::args& args) {
    if (args.size() == 1 && !is_tensor(args[0])) return chain_matmul(args[0].cast<TensorList>());
    return chain_matmul(args.cast<TensorList>());
  });
  def_op(m, cls, "matrix_power", &matrix_power, py::arg("n"));
}

void bind_differences(py::module_& m, TensorClass& cls) {
  def_op(m, cls, "diff", [](const Tensor& x, int64_t n, int64_t dim, const OptTensor& pre, const OptTensor& app) {
    return diff(x, n, dim, pre.value_or(Tensor()), app.value_or(Tensor()));
  }, py::arg("n") = 1, py::arg("dim") = -1, py::arg("prepend") = py::none(), py::arg("append") = py::none());
  def_op(m, cls, "dist", &dist, py::arg("other"), py::arg("p") = 2);
  m.def("cdist", &cdist, py::arg("x1"), py::arg("x2"), py::arg("p") = 2.0,
        py::arg("compute_mode") = "use_mm_for_euclid_dist_if_necessary");
  def_op(m, cls, "cov", [](const Tensor& x, int64_t c, const OptTensor& fw, const OptTensor& aw) {
    return cov(x, c, fw.value_or(Tensor()), aw.value_or(Tensor()));
  }, py::kw_only(), py::arg("correction") = 1, py::arg("fweights") = py::none(), py::arg("aweights") = py::none());
  def_op(m, cls, "corrcoef", &corrcoef);
}

void bind_integration(py::module_& m) {
  for (const char* name : {"trapezoid", "cumulative_trapezoid"}) {
    bool cumulative = name[0] == 'c';
    m.def(name, [cumulative](const Tensor& y, const OptTensor& x, const std::optional<Scalar>& dx, int64_t dim) {
      if (x && dx) throw Error("trapezoid: received both x and dx; pass only one of them");
      if (x) return cumulative ? cumulative_trapezoid(y, *x, dim) : trapezoid(y, *x, dim);
      Scalar step = dx.value_or(Scalar(1));
      return cumulative ? cumulative_trapezoid(y, step, dim) : trapezoid(y, step, dim);
    }, py::arg("y"), py::arg("x") = py::none(), py::kw_only(), py::arg("dx") = py::none(), py::arg("dim") = -1);
  }
  m.def("trapz", [](const Tensor& y, const Tensor& x, int64_t dim) { return trapezoid(y, x, dim); },
        py::arg("y"), py::arg("x"), py::kw_only(), py::arg("dim") = -1);
  m.def("trapz", [](const Tensor& y, double dx, int64_t dim) { return trapezoid(y, Scalar(dx), dim); },
        py::arg("y"), py::kw_only(), py::arg("dx") = 1.0, py::arg("dim") = -1);
}

void bind_linalg_module(py::module_& m) {
  py::module_ l = m.def_submodule("_linalg", "the C++ functions behind ember.linalg");
  l.def("vector_norm", [](const Tensor& x, const Scalar& ord, const Dims& d, bool k, std::optional<DType> t) {
    return linalg::vector_norm(x, ord.to_double(), d.dims, k, t);
  }, py::arg("x"), py::arg("ord") = 2, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
        py::arg("dtype") = py::none());
  l.def("matrix_norm", [](const Tensor& a, const py::object& ord, const IntList& d, bool k, std::optional<DType> t) {
    if (py::isinstance<py::str>(ord)) return linalg::matrix_norm(a, ord.cast<std::string>(), d, k, t);
    return linalg::matrix_norm(a, ord.cast<Scalar>().to_double(), d, k, t);
  }, py::arg("A"), py::arg("ord") = "fro", py::arg("dim") = IntList{-2, -1}, py::arg("keepdim") = false,
        py::kw_only(), py::arg("dtype") = py::none());
  l.def("multi_dot", &linalg::multi_dot, py::arg("tensors"));
  l.def("cross", &linalg::cross, py::arg("input"), py::arg("other"), py::kw_only(), py::arg("dim") = -1);
  l.def("vecdot", &linalg::vecdot, py::arg("x"), py::arg("y"), py::kw_only(), py::arg("dim") = -1);
}

}  // namespace

void bind_linalg_extra(py::module_& m, TensorClass& cls) {
  bind_products(m, cls);
  bind_differences(m, cls);
  bind_integration(m);
  bind_linalg_module(m);
}

}  // namespace ember::python
