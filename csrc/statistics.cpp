// Python bindings of the order statistics, nan-aware reductions, closeness tests,
// searching and counting (include/ember/ops/statistics.h), with PyTorch's argument
// names and defaults; (values, indices) results are ember.return_types named tuples.
#include "bindings.h"
#include "reduce_bindings.h"

namespace ember::python {

namespace {

using OptDType = std::optional<DType>;
using OptDim = std::optional<int64_t>;

void bind_nan_reductions(py::module_& m, TensorClass& cls) {
  auto dim = py::arg("dim") = py::none();
  auto keepdim = py::arg("keepdim") = false;
  auto dtype = py::arg("dtype") = py::none();
  def_op(m, cls, "nansum", [](const Tensor& x, const Dims& d, bool k, OptDType t) {
    return nansum(x, d.dims, k, t);
  }, dim, keepdim, py::kw_only(), dtype);
  def_op(m, cls, "nanmean", [](const Tensor& x, const Dims& d, bool k, OptDType t) {
    return nanmean(x, d.dims, k, t);
  }, dim, keepdim, py::kw_only(), dtype);
}

void bind_order_statistics(py::module_& m, TensorClass& cls) {
  py::module_ types = m.attr("return_types");
  static ReturnType median_t(types, "median", "values", "indices");
  static ReturnType nanmedian_t(types, "nanmedian", "values", "indices");
  static ReturnType kthvalue_t(types, "kthvalue", "values", "indices");
  static ReturnType mode_t(types, "mode", "values", "indices");
  auto keepdim = py::arg("keepdim") = false;
  def_op(m, cls, "median", [](const Tensor& x) { return median(x); });
  def_op(m, cls, "median", [](const Tensor& x, int64_t d, bool k) { return median_t(median(x, d, k)); },
         py::arg("dim"), keepdim);
  def_op(m, cls, "nanmedian", [](const Tensor& x) { return nanmedian(x); });
  def_op(m, cls, "nanmedian", [](const Tensor& x, int64_t d, bool k) {
    return nanmedian_t(nanmedian(x, d, k));
  }, py::arg("dim"), keepdim);
  def_op(m, cls, "kthvalue", [](const Tensor& x, int64_t kth, int64_t d, bool k) {
    return kthvalue_t(kthvalue(x, kth, d, k));
  }, py::arg("k"), py::arg("dim") = -1, keepdim);
  def_op(m, cls, "mode", [](const Tensor& x, int64_t d, bool k) { return mode_t(mode(x, d, k)); },
         py::arg("dim") = -1, keepdim);
  auto interpolation = py::arg("interpolation") = "linear";
  def_op(m, cls, "quantile", [](const Tensor& x, const Tensor& q, OptDim d, bool k, const std::string& i) {
    return quantile(x, q, d, k, i);
  }, py::arg("q"), py::arg("dim") = py::none(), keepdim, py::kw_only(), interpolation);
  def_op(m, cls, "quantile", [](const Tensor& x, double q, OptDim d, bool k, const std::string& i) {
    return quantile(x, q, d, k, i);
  }, py::arg("q"), py::arg("dim") = py::none(), keepdim, py::kw_only(), interpolation);
  def_op(m, cls, "nanquantile", [](const Tensor& x, const Tensor& q, OptDim d, bool k, const std::string& i) {
    return nanquantile(x, q, d, k, i);
  }, py::arg("q"), py::arg("dim") = py::none(), keepdim, py::kw_only(), interpolation);
  def_op(m, cls, "nanquantile", [](const Tensor& x, double q, OptDim d, bool k, const std::string& i) {
    return nanquantile(x, q, d, k, i);
  }, py::arg("q"), py::arg("dim") = py::none(), keepdim, py::kw_only(), interpolation);
}

void bind_scans(py::module_& m, TensorClass& cls) {
  py::module_ types = m.attr("return_types");
  static ReturnType cummax_t(types, "cummax", "values", "indices");
  static ReturnType cummin_t(types, "cummin", "values", "indices");
  def_op(m, cls, "cummax", [](const Tensor& x, int64_t d) { return cummax_t(cummax(x, d)); }, py::arg("dim"));
  def_op(m, cls, "cummin", [](const Tensor& x, int64_t d) { return cummin_t(cummin(x, d)); }, py::arg("dim"));
  def_op(m, cls, "logcumsumexp", &logcumsumexp, py::arg("dim"));
}

void bind_closeness(py::module_& m, TensorClass& cls) {
  auto tolerances = std::make_tuple(py::arg("rtol") = 1e-05, py::arg("atol") = 1e-08,
                                    py::arg("equal_nan") = false);
  std::apply([&](const auto&... a) {
    def_op(m, cls, "isclose", &isclose, py::arg("other"), a...);
    def_op(m, cls, "allclose", &allclose, py::arg("other"), a...);
  }, tolerances);
  def_op(m, cls, "equal", &equal, py::arg("other"));
}

void bind_search_count(py::module_& m, TensorClass& cls) {
  using OptStr = std::optional<std::string>;
  auto opts = std::make_tuple(py::kw_only(), py::arg("out_int32") = false, py::arg("right") = false,
                              py::arg("side") = py::none(), py::arg("sorter") = py::none());
  std::apply([&](const auto&... a) {
    m.def("searchsorted", [](const Tensor& s, const Tensor& v, bool i32, bool r, const OptStr& side,
                             const std::optional<Tensor>& sorter) {
      return searchsorted(s, v, i32, r, side, sorter.value_or(Tensor()));
    }, py::arg("sorted_sequence"), py::arg("input"), a...);
    m.def("searchsorted", [](const Tensor& s, const Scalar& v, bool i32, bool r, const OptStr& side,
                             const std::optional<Tensor>& sorter) {
      return searchsorted(s, v, i32, r, side, sorter.value_or(Tensor()));
    }, py::arg("sorted_sequence"), py::arg("self"), a...);
  }, opts);
  auto bopts = std::make_tuple(py::kw_only(), py::arg("out_int32") = false, py::arg("right") = false);
  std::apply([&](const auto&... a) {
    m.def("bucketize", [](const Tensor& x, const Tensor& b, bool i32, bool r) { return bucketize(x, b, i32, r); },
          py::arg("input"), py::arg("boundaries"), a...);
    m.def("bucketize", [](const Scalar& x, const Tensor& b, bool i32, bool r) { return bucketize(x, b, i32, r); },
          py::arg("self"), py::arg("boundaries"), a...);
  }, bopts);
  def_op(m, cls, "histc", [](const Tensor& x, int64_t bins, const Scalar& mn, const Scalar& mx) {
    return histc(x, bins, mn, mx);
  }, py::arg("bins") = 100, py::arg("min") = 0, py::arg("max") = 0);
  def_op(m, cls, "bincount", [](const Tensor& x, const std::optional<Tensor>& w, int64_t minlength) {
    return bincount(x, w.value_or(Tensor()), minlength);
  }, py::arg("weights") = py::none(), py::arg("minlength") = 0);
}

}  // namespace

void bind_statistics(py::module_& m, TensorClass& cls) {
  bind_nan_reductions(m, cls);
  bind_order_statistics(m, cls);
  bind_scans(m, cls);
  bind_closeness(m, cls);
  bind_search_count(m, cls);
}

}  // namespace ember::python
