// Python bindings of the LAPACK-backed linear algebra (include/ember/ops/linalg_decompositions.h)
// as ember._C._linalg_lapack, which python/ember/linalg.py wraps with PyTorch's names,
// named tuples and out=; and ember.linalg.LinAlgError (a RuntimeError, like torch's).
#include "bindings.h"
#include "ember/ops/linalg_decompositions.h"

namespace ember::python {

void bind_linalg_lapack(py::module_& m) {
  py::module_ l = m.def_submodule("_linalg_lapack", "the C++ functions behind ember.linalg's decompositions");
  static py::exception<LinAlgError> linalg_error(l, "LinAlgError", PyExc_RuntimeError);
  // Registered after bind_errors' translator, so it is tried first.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const LinAlgError& e) {
      PyErr_SetString(linalg_error.ptr(), e.what());
    }
  });
  using py::arg;
  l.def("lu_factor_ex", &linalg_lu_factor_ex, arg("A"), py::kw_only(), arg("pivot") = true,
        arg("check_errors") = false);
  l.def("lu_factor", &linalg_lu_factor, arg("A"), py::kw_only(), arg("pivot") = true);
  l.def("lu_solve", &linalg_lu_solve, arg("LU"), arg("pivots"), arg("B"), py::kw_only(), arg("left") = true,
        arg("adjoint") = false);
  l.def("lu_pivots_to_permutation", &lu_pivots_to_permutation, arg("pivots"), arg("m"));
  l.def("det", &linalg_det, arg("A"));
  l.def("slogdet", &linalg_slogdet, arg("A"));
  l.def("logdet", &logdet, arg("A"));
  l.def("solve_triangular", &linalg_solve_triangular, arg("A"), arg("B"), py::kw_only(), arg("upper"),
        arg("left") = true, arg("unitriangular") = false);
  l.def("solve_ex", &linalg_solve_ex, arg("A"), arg("B"), py::kw_only(), arg("left") = true,
        arg("check_errors") = false);
  l.def("solve", &linalg_solve, arg("A"), arg("B"), py::kw_only(), arg("left") = true);
  l.def("inv_ex", &linalg_inv_ex, arg("A"), py::kw_only(), arg("check_errors") = false);
  l.def("inv", &linalg_inv, arg("A"));
  l.def("cholesky_ex", &linalg_cholesky_ex, arg("A"), py::kw_only(), arg("upper") = false,
        arg("check_errors") = false);
  l.def("cholesky", &linalg_cholesky, arg("A"), py::kw_only(), arg("upper") = false);
  l.def("qr", &linalg_qr, arg("A"), arg("mode") = "reduced");
  l.def("eigh", &linalg_eigh, arg("A"), arg("UPLO") = "L");
  l.def("svd", &linalg_svd, arg("A"), arg("full_matrices") = true, py::kw_only(), arg("compute_uv") = true);
  l.def("geqrf", &geqrf, arg("input"));
}

}  // namespace ember::python
