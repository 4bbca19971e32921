// CPU kernels of the matrix decompositions (schema rows linalg_lu_factor_ex, linalg_det,
// linalg_solve_triangular, linalg_cholesky_ex, linalg_qr, linalg_eigh, linalg_svd,
// geqrf) over the LAPACK of lapack.h. Each matrix of a batch is copied into a
// column-major buffer that LAPACK overwrites and that is (or becomes) the output, so
// outputs are column-major per matrix, as PyTorch's; batches are split over OpenMP threads.
// The op functions (lib/ops/linalg_decompositions.cpp) have checked shapes and dtypes
// (float32/float64) and broadcast batch dims.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

#include "cpu/lapack.h"
#include "ember/tensor_impl.h"
#include "cpu/parallel.h"
#include "dispatch/args/linalg.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg_decompositions.h"

namespace ember::cpu {

namespace {

DimVector batch_of(const Tensor& t) { return DimVector(t.sizes().begin(), t.sizes().end() - 2); }

int64_t count(const DimVector& batch) {
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  return n;
}

// A new [batch..., rows, cols] tensor stored column-major per matrix, matrices one after another.
Tensor column_major(const DimVector& batch, int64_t rows, int64_t cols, DType dtype) {
  IntList sizes(batch.begin(), batch.end());
  sizes.push_back(rows);
  sizes.push_back(cols);
  IntList strides(sizes.size());
  size_t d = sizes.size();
  strides[d - 2] = 1;
  strides[d - 1] = std::max<int64_t>(rows, 1);
  int64_t step = rows * cols;
  for (size_t i = d - 2; i-- > 0;) {
    strides[i] = step;
    step *= sizes[i];
  }
  // A fresh tensor over its own storage, not a view (an as_strided view would make the
  // autograd layer treat the outputs as written in place through a view).
  Tensor buffer = empty(IntList{std::max<int64_t>(step, 0)}, TensorOptions(dtype));
  return Tensor(make_intrusive<TensorImpl>(buffer.impl()->storage(), 0, DimVector(sizes.begin(), sizes.end()),
                                           DimVector(strides.begin(), strides.end()), dtype));
}

Tensor column_major_copy(const Tensor& a) {
  Tensor out = column_major(batch_of(a), a.size(-2), a.size(-1), a.dtype());
  if (a.numel() > 0) out.copy_(a);
  return out;
}

Tensor batch_tensor(const DimVector& batch, int64_t last, DType dtype) {
  IntList sizes(batch.begin(), batch.end());
  if (last >= 0) sizes.push_back(last);
  return empty(sizes, TensorOptions(dtype));
}

// Runs f(T{}) for T = float or double (the op functions let no other dtype through).
template <typename F>
void for_lapack_dtype(DType dtype, const F& f) {
  if (dtype == kFloat32) f(float{});
  else if (dtype == kFloat64) f(double{});
  else throw Error(detail::str("LAPACK kernels run float32 and float64 only, got ", dtype_name(dtype)));
}

int ld(int64_t rows) { return static_cast<int>(std::max<int64_t>(rows, 1)); }

// Matrices per thread chunk: about 32k multiply-adds of work each.
int64_t grain_for(int64_t m, int64_t n) {
  int64_t work = std::max<int64_t>(1, m * n * std::max<int64_t>(1, std::min(m, n)));
  return std::max<int64_t>(1, 32768 / work);
}

template <typename F>
void for_each_matrix(int64_t batch, int64_t m, int64_t n, const F& f) {
  parallel_for(0, batch, grain_for(m, n), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) f(b);
  });
}

// The first failing batch element's info (0 if none), for errors raised after a parallel loop.
struct FirstFailure {
  std::atomic<int64_t> batch{-1};
  std::atomic<int> info{0};
  void note(int64_t b, int i) {
    if (i == 0) return;
    int64_t expected = -1;
    if (batch.compare_exchange_strong(expected, b)) info = i;
  }
};

std::string batch_prefix(int64_t batch_size, int64_t b) {
  return batch_size > 1 ? detail::str("(Batch element ", b, "): ") : std::string();
}

void require_lapack(const OpCall& call) { lapack::require(call.name()); }

// ---- LU -----------------------------------------------------------------------------------

void lu_factor_ex_kernel(OpCall& call) {
  require_lapack(call);
  const Tensor& a = call.in(0);
  int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  DimVector batch = batch_of(a);
  int64_t nb = count(batch);
  Tensor lu = column_major_copy(a);
  Tensor pivots = batch_tensor(batch, k, kInt32), info = batch_tensor(batch, -1, kInt32);
  int* piv = static_cast<int*>(pivots.data_ptr());
  int* inf = static_cast<int*>(info.data_ptr());
  for_lapack_dtype(a.dtype(), [&](auto tag) {
    using scalar_t = decltype(tag);
    scalar_t* p = static_cast<scalar_t*>(lu.data_ptr());
    for_each_matrix(nb, m, n, [&](int64_t b) {
      inf[b] = k == 0 ? 0 : lapack::getrf<scalar_t>(m, n, p + b * m * n, ld(m), piv + b * k);
    });
  });
  call.outputs = {lu, pivots, info};
}

void det_kernel(OpCall& call) {
  require_lapack(call);
  const Tensor& a = call.in(0);
  int64_t n = a.size(-1);
  DimVector batch = batch_of(a);
  int64_t nb = count(batch);
  Tensor lu = column_major_copy(a);
  Tensor out = batch_tensor(batch, -1, a.dtype());
  for_lapack_dtype(a.dtype(), [&](auto tag) {
    using scalar_t = decltype(tag);
    scalar_t* p = static_cast<scalar_t*>(lu.data_ptr());
    scalar_t* d = static_cast<scalar_t*>(out.data_ptr());
    for_each_matrix(nb, n, n, [&](int64_t b) {
      scalar_t* mat = p + b * n * n;
      std::vector<int> piv(std::max<int64_t>(n, 1));
      if (n > 0) lapack::getrf<scalar_t>(n, n, mat, ld(n), piv.data());
      scalar_t det = 1;
      for (int64_t i = 0; i < n; ++i) {
        det *= mat[i * n + i];
        if (piv[i] != i + 1) det = -det;
      }
      d[b] = det;
    });
  });
  call.outputs = {out};
}

// ---- triangular solve -------------------------------------------------------------------

void solve_triangular_kernel(OpCall& call) {
  require_lapack(call);
  const Tensor &a = call.in(0), &rhs = call.in(1);
  const auto args = LinalgSolveTriangularArgs::from(call);
  int64_t n = a.size(-1), rows = rhs.size(-2), cols = rhs.size(-1);
  int64_t nb = count(batch_of(rhs));
  Tensor x = column_major_copy(rhs);
  if (x.numel() == 0) {
    call.outputs = {x};
    return;
  }
  Tensor acm = column_major_copy(a);
  char side = args.left ? 'L' : 'R', uplo = args.upper ? 'U' : 'L', diag = args.unitriangular ? 'U' : 'N';
  for_lapack_dtype(a.dtype(), [&](auto tag) {
    using scalar_t = decltype(tag);
    const scalar_t* ap = static_cast<const scalar_t*>(acm.data_ptr());
    scalar_t* xp = static_cast<scalar_t*>(x.data_ptr());
    for_each_matrix(nb, rows, cols, [&](int64_t b) {
      lapack::trsm<scalar_t>(side, uplo, 'N', diag, rows, cols, scalar_t(1), ap + b * n * n, ld(n),
                             xp + b * rows * cols, ld(rows));
    });
  });
  call.outputs = {x};
}

// ---- Cholesky -----------------------------------------------------------------------------

void cholesky_ex_kernel(OpCall& call) {
  require_lapack(call);
  const Tensor& a = call.in(0);
  const auto args = LinalgCholeskyExArgs::from(call);
  int64_t n = a.size(-1);
  DimVector batch = batch_of(a);
  int64_t nb = count(batch);
  Tensor l = column_major_copy(a);
  Tensor info = batch_tensor(batch, -1, kInt32);
  int* inf = static_cast<int*>(info.data_ptr());
  for_lapack_dtype(a.dtype(), [&](auto tag) {
    using scalar_t = decltype(tag);
    scalar_t* p = static_cast<scalar_t*>(l.data_ptr());
    for_each_matrix(nb, n, n, [&](int64_t b) {
      scalar_t* mat = p + b * n * n;
      inf[b] = n == 0 ? 0 : lapack::potrf<scalar_t>(args.upper ? 'U' : 'L', n, mat, ld(n));
      // OpenBLAS's potrf lets a NaN pivot through; reference LAPACK (and PyTorch) report it.
      for (int64_t i = 0; i < n && inf[b] == 0; ++i)
        if (std::isnan(mat[i * n + i])) inf[b] = static_cast<int>(i + 1);
      // The other triangle still holds A: zero it (column-major: mat[j * n + i] is (i, j)).
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i)
          if (args.upper ? i > j : i < j) mat[j * n + i] = 0;
    });
  });
  call.outputs = {l, info};
}

// ---- QR -----------------------------------------------------------------------------------

void qr_kernel(OpCall& call) {
  require_lapack(call);
  const Tensor& a = call.in(0);
  const std::string mode = LinalgQrArgs::from(call).mode;
  int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  bool complete = mode == "complete", want_q = mode != "r";
  int64_t r_rows = complete ? m : k, q_cols = complete ? m : k;
  DimVector batch = batch_of(a);
  int64_t nb = count(batch);
  Tensor work = column_major_copy(a);
  Tensor r = column_major(batch, r_rows, n, a.dtype());
  Tensor q = want_q ? column_major(batch, m, q_cols, a.dtype()) : empty({0}, TensorOptions(a.dtype()));
  for_lapack_dtype(a.dtype(), [&](auto tag) {
    using scalar_t = decltype(tag);
    scalar_t* wp = static_cast<scalar_t*>(work.data_ptr());
    scalar_t* rp = static_cast<scalar_t*>(r.data_ptr());
    scalar_t* qp = want_q ? static_cast<scalar_t*>(q.data_ptr()) : nullptr;
    for_each_matrix(nb, m, n, [&](int64_t b) {
      scalar_t* w = wp + b * m * n;
      std::vector<scalar_t> tau(std::max<int64_t>(k, 1));
      if (k > 0) lapack::geqrf<scalar_t>(m, n, w, ld(m), tau.data());
      scalar_t* rm = rp + b * r_rows * n;
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < r_rows; ++i) rm[j * r_rows + i] = i <= j && i < k ? w[j * m + i] : scalar_t(0);
      if (!want_q) return;
      scalar_t* qm = qp + b * m * q_cols;
      std::fill(qm, qm + m * q_cols, scalar_t(0));
      std::copy(w, w + m * k, qm);  // the k reflectors
      if (q_cols > 0) lapack::orgqr<scalar_t>(m, q_cols, k, qm, ld(m), tau.data());
    });
  });
  call.outputs = {q, r};
}

void geqrf_kernel(OpCall& call) {
  require_lapack(call);
  const Tensor& a = call.in(0);
  int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  DimVector batch = batch_of(a);
  int64_t nb = count(batch);
  Tensor w = column_major_copy(a);
  Tensor tau = batch_tensor(batch, k, a.dtype());
  for_lapack_dtype(a.dtype(), [&](auto tag) {
    using scalar_t = decltype(tag);
    scalar_t* wp = static_cast<scalar_t*>(w.data_ptr());
    scalar_t* tp = static_cast<scalar_t*>(tau.data_ptr());
    for_each_matrix(nb, m, n, [&](int64_t b) {
      if (k > 0) lapack::geqrf<scalar_t>(m, n, wp + b * m * n, ld(m), tp + b * k);
    });
  });
  call.outputs = {w, tau};
}

// ---- symmetric eigen-decomposition --------------------------------------------------------

void eigh_kernel(OpCall& call) {
  require_lapack(call);
  const Tensor& a = call.in(0);
  char uplo = LinalgEighArgs::from(call).UPLO == "U" ? 'U' : 'L';
  int64_t n = a.size(-1);
  DimVector batch = batch_of(a);
  int64_t nb = count(batch);
  Tensor v = column_major_copy(a);
  Tensor w = batch_tensor(batch, n, a.dtype());
  FirstFailure failed;
  for_lapack_dtype(a.dtype(), [&](auto tag) {
    using scalar_t = decltype(tag);
    scalar_t* vp = static_cast<scalar_t*>(v.data_ptr());
    scalar_t* wp = static_cast<scalar_t*>(w.data_ptr());
    for_each_matrix(nb, n, n, [&](int64_t b) {
      if (n > 0) failed.note(b, lapack::syevd<scalar_t>('V', uplo, n, vp + b * n * n, ld(n), wp + b * n));
    });
  });
  if (failed.batch >= 0 && failed.info > 0)
    throw LinAlgError(detail::str("linalg.eigh: ", batch_prefix(nb, failed.batch),
                                  "The algorithm failed to converge because the input matrix is ill-conditioned or "
                                  "has too many repeated eigenvalues (error code: ", failed.info.load(), ")."));
  call.outputs = {w, v};
}

// ---- SVD ----------------------------------------------------------------------------------

void svd_kernel(OpCall& call) {
  require_lapack(call);
  const Tensor& a = call.in(0);
  const auto args = LinalgSvdArgs::from(call);
  int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  int64_t u_cols = args.full_matrices ? m : k, vt_rows = args.full_matrices ? n : k;
  DimVector batch = batch_of(a);
  int64_t nb = count(batch);
  Tensor work = column_major_copy(a);
  Tensor s = batch_tensor(batch, k, a.dtype());
  Tensor u, vh;
  if (args.compute_uv) {
    u = column_major(batch, m, u_cols, a.dtype());
    vh = column_major(batch, vt_rows, n, a.dtype());
  } else {
    u = empty({0}, TensorOptions(a.dtype()));
    vh = empty({0}, TensorOptions(a.dtype()));
  }
  char jobz = !args.compute_uv ? 'N' : args.full_matrices ? 'A' : 'S';
  FirstFailure failed;
  for_lapack_dtype(a.dtype(), [&](auto tag) {
    using scalar_t = decltype(tag);
    scalar_t* wp = static_cast<scalar_t*>(work.data_ptr());
    scalar_t* sp = static_cast<scalar_t*>(s.data_ptr());
    scalar_t* up = args.compute_uv ? static_cast<scalar_t*>(u.data_ptr()) : nullptr;
    scalar_t* vp = args.compute_uv ? static_cast<scalar_t*>(vh.data_ptr()) : nullptr;
    scalar_t dummy[1] = {0};
    for_each_matrix(nb, m, n, [&](int64_t b) {
      scalar_t* um = up ? up + b * m * u_cols : dummy;
      scalar_t* vm = vp ? vp + b * vt_rows * n : dummy;
      if (k == 0) {  // nothing to factor: the full bases are identities
        if (up) for (int64_t i = 0; i < m * u_cols; ++i) um[i] = i % (m + 1) == 0 ? 1 : 0;
        if (vp) for (int64_t i = 0; i < vt_rows * n; ++i) vm[i] = i % (n + 1) == 0 ? 1 : 0;
        return;
      }
      failed.note(b, lapack::gesdd<scalar_t>(jobz, m, n, wp + b * m * n, ld(m), sp + b * k, um, ld(m), vm,
                                              ld(vt_rows)));
    });
  });
  if (failed.batch >= 0) {
    bool finite = true;
    for_lapack_dtype(a.dtype(), [&](auto tag) {
    using scalar_t = decltype(tag);
      Tensor c = a.contiguous();
      const scalar_t* p = static_cast<const scalar_t*>(c.data_ptr());
      for (int64_t i = 0; i < c.numel() && finite; ++i) finite = std::isfinite(p[i]);
    });
    throw LinAlgError(detail::str("linalg.svd: ", batch_prefix(nb, failed.batch),
                                  finite ? "The algorithm failed to converge because the input matrix is "
                                           "ill-conditioned or has too many repeated singular values (error code: " +
                                               std::to_string(failed.info.load()) + ")."
                                         : std::string("The algorithm failed to converge because the input matrix "
                                                       "contained non-finite values.")));
  }
  call.outputs = {u, s, vh};
}

}  // namespace

EMBER_REGISTER_KERNEL(linalg_lu_factor_ex, CPU, lu_factor_ex_kernel);
EMBER_REGISTER_KERNEL(linalg_det, CPU, det_kernel);
EMBER_REGISTER_KERNEL(linalg_solve_triangular, CPU, solve_triangular_kernel);
EMBER_REGISTER_KERNEL(linalg_cholesky_ex, CPU, cholesky_ex_kernel);
EMBER_REGISTER_KERNEL(linalg_qr, CPU, qr_kernel);
EMBER_REGISTER_KERNEL(geqrf, CPU, geqrf_kernel);
EMBER_REGISTER_KERNEL(linalg_eigh, CPU, eigh_kernel);
EMBER_REGISTER_KERNEL(linalg_svd, CPU, svd_kernel);

}  // namespace ember::cpu
