// The op functions of the LAPACK primitives (include/ember/ops/linalg_decompositions.h):
// argument checks with PyTorch's messages, then one dispatch. A CUDA input is copied to
// the host, computed there and copied back (documented in docs/linalg.md): the copies
// are ops themselves, so autograd and tracing see the round trip.
#include <algorithm>

#include "dispatch/args/linalg.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/ops/linalg_decompositions.h"
#include "ember/ops/views.h"
#include "ops/linalg_checks.h"

namespace ember {

using namespace linalg_checks;

namespace {

Tensor to_device(const Tensor& t, Device d) { return t.defined() ? t.to(d) : t; }

template <typename... T>
std::tuple<T...> to_device(std::tuple<T...> ts, Device d) {
  return std::apply([&](auto&... t) { return std::tuple<T...>(to_device(t, d)...); }, ts);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  check_input("linalg.lu_factor_ex", A, false);
  EMBER_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  if (on_cuda(A)) return to_device(linalg_lu_factor_ex(A.cpu(), pivot, check_errors), A.device());
  OpCall call(opid::linalg_lu_factor_ex, {A}, LinalgLuFactorExArgs{.pivot = pivot, .check_errors = check_errors}.attrs());
  dispatch(call);
  Tensor info = call.outputs[2];
  if (check_errors) {
    auto [b, i] = first_failure(info);
    if (b >= 0) throw_zero_pivot("linalg.lu_factor_ex", info, b, i);
  }
  return {call.outputs[0], call.outputs[1], info};
}

Tensor linalg_det(const Tensor& A) {
  check_input("linalg.det", A, true);
  if (on_cuda(A)) return linalg_det(A.cpu()).to(A.device());
  OpCall call(opid::linalg_det, {A});
  return dispatch_one(call);
}

Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  const char* api = "linalg.solve_triangular";
  check_square(api, A);
  check_matrix(api, B, "B");
  check_dtype(api, A);
  check_dtype(api, B);
  int64_t n = A.size(-1);
  int64_t shared = left ? B.size(-2) : B.size(-1);
  EMBER_CHECK(shared == n, api, ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B",
              " (", A.size(-2), "x", A.size(-1), " and ", B.size(-2), "x", B.size(-1), ")");
  EMBER_CHECK(A.device() == B.device(), api, ": Expected all tensors to be on the same device, but found A on ",
              A.device().str(), " and B on ", B.device().str());
  DType dtype = promote_types(A.dtype(), B.dtype());
  DimVector batch = broadcast_shapes(DimVector(A.sizes().begin(), A.sizes().end() - 2),
                                     DimVector(B.sizes().begin(), B.sizes().end() - 2), api);
  IntList a_shape(batch.begin(), batch.end()), b_shape(batch.begin(), batch.end());
  a_shape.insert(a_shape.end(), {n, n});
  b_shape.insert(b_shape.end(), {B.size(-2), B.size(-1)});
  Tensor a = expand(A.to(dtype), a_shape), b = expand(B.to(dtype), b_shape);
  if (on_cuda(a))
    return linalg_solve_triangular(a.cpu(), b.cpu(), upper, left, unitriangular).to(A.device());
  OpCall call(opid::linalg_solve_triangular, {a, b},
              LinalgSolveTriangularArgs{.upper = upper, .left = left, .unitriangular = unitriangular}.attrs());
  return dispatch_one(call);
}

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  check_input("linalg.cholesky", A, true);
  if (on_cuda(A)) return to_device(linalg_cholesky_ex(A.cpu(), upper, check_errors), A.device());
  OpCall call(opid::linalg_cholesky_ex, {A}, LinalgCholeskyExArgs{.upper = upper, .check_errors = check_errors}.attrs());
  dispatch(call);
  Tensor info = call.outputs[1];
  if (check_errors) {
    auto [b, i] = first_failure(info);
    if (b >= 0)
      throw LinAlgError(detail::str("linalg.cholesky: ", batch_prefix(info, b),
                                    "The factorization could not be completed because the input is not "
                                    "positive-definite (the leading minor of order ", i,
                                    " is not positive-definite)."));
  }
  return {call.outputs[0], info};
}

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, const std::string& mode) {
  check_input("linalg.qr", A, false);
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", "qr received unrecognized mode '", mode,
              "' but expected one of 'reduced' (default), 'r', or 'complete'");
  if (on_cuda(A)) return to_device(linalg_qr(A.cpu(), mode), A.device());
  OpCall call(opid::linalg_qr, {A}, LinalgQrArgs{.mode = mode}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, const std::string& UPLO) {
  check_input("linalg.eigh", A, true);
  EMBER_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u",
              "Expected UPLO argument to be 'L' or 'U', but got ", UPLO);
  std::string uplo = UPLO == "u" || UPLO == "U" ? "U" : "L";
  if (on_cuda(A)) return to_device(linalg_eigh(A.cpu(), uplo), A.device());
  OpCall call(opid::linalg_eigh, {A}, LinalgEighArgs{.UPLO = uplo}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices, bool compute_uv) {
  check_input("linalg.svd", A, false);
  if (on_cuda(A)) return to_device(linalg_svd(A.cpu(), full_matrices, compute_uv), A.device());
  OpCall call(opid::linalg_svd, {A},
              LinalgSvdArgs{.full_matrices = full_matrices, .compute_uv = compute_uv}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1], call.outputs[2]};
}

std::tuple<Tensor, Tensor> geqrf(const Tensor& A) {
  check_input("geqrf", A, false);
  if (on_cuda(A)) return to_device(geqrf(A.cpu()), A.device());
  OpCall call(opid::geqrf, {A});
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

}  // namespace ember
