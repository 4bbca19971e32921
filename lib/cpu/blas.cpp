// The BLAS loader and the routing of each product to a library: see Note [BLAS
// loading] in blas.h.
//
// Why oneDNN for float32 and OpenBLAS for the rest. sgemm GFLOP/s, square n,
// 2-core AVX-512 Xeon, 2 threads, an idle machine, OpenBLAS 0.3.21 with
// OPENBLAS_CORETYPE=SkylakeX (without it: ~50-60), PyTorch 2.x (MKL) as reference:
//
//     n                   64    128    256    512   1024   2048
//     OpenBLAS           190    125    284    325    386    368   (its own threads)
//     oneDNN 2.6         112    361    403    403    418    424
//     PyTorch            108    298    397    420    416    435
//     ember (from Python, this routing) / PyTorch, same process:
//                       1.04   1.10   1.10   1.06   1.00   1.00
//
// OpenBLAS reaches only 0.7-0.8x PyTorch at n = 256..512, oneDNN ~1.0x. Below
// ~64^3 multiply-adds oneDNN's threading costs more than it gains and
// single-threaded OpenBLAS is fastest, so tiny sgemms go there. oneDNN has no
// dgemm, gemv or dot: those stay with OpenBLAS.
#include "cpu/blas.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "cpu/gemm_ref.h"
#include "cpu/parallel.h"

namespace ember::cpu::blas {

namespace {

// CBLAS's enum values (cblas.h); the ABI passes them as int.
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

using sgemm_fn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                          int, float, float*, int);
using dgemm_fn = void (*)(int, int, int, int, int, int, double, const double*, int,
                          const double*, int, double, double*, int);
using sgemv_fn = void (*)(int, int, int, int, float, const float*, int, const float*, int, float,
                          float*, int);
using dgemv_fn = void (*)(int, int, int, int, double, const double*, int, const double*, int,
                          double, double*, int);
using sdot_fn = float (*)(int, const float*, int, const float*, int);
using ddot_fn = double (*)(int, const double*, int, const double*, int);
using dnnl_sgemm_fn = int (*)(char, char, int64_t, int64_t, int64_t, float, const float*, int64_t,
                              const float*, int64_t, float, float*, int64_t);

struct Library {
  sgemm_fn sgemm = nullptr;
  dgemm_fn dgemm = nullptr;
  sgemv_fn sgemv = nullptr;
  dgemv_fn dgemv = nullptr;
  sdot_fn sdot = nullptr;
  ddot_fn ddot = nullptr;
  dnnl_sgemm_fn dnnl_sgemm = nullptr;
  std::string description;
};

// The OpenBLAS core type whose kernels suit this CPU, or nullptr to let
// OpenBLAS decide (it knows CPUs older than itself well).
const char* openblas_core_for_cpu() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return nullptr;
}

void* open_first(std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
  return nullptr;
}

template <typename F>
F symbol(void* handle, const char* name) {
  return handle ? reinterpret_cast<F>(dlsym(handle, name)) : nullptr;
}

void load_openblas(Library& lib) {
  std::string note;
  if (const char* user = std::getenv("OPENBLAS_CORETYPE")) {
    note = std::string("OPENBLAS_CORETYPE=") + user + " set by the user";
  } else if (const char* core = openblas_core_for_cpu()) {
    setenv("OPENBLAS_CORETYPE", core, 0);
    note = std::string("OPENBLAS_CORETYPE=") + core + " set by ember";
  }
  void* h = open_first({"libopenblas.so.0", "libopenblas.so"});
  if (!h) {
    lib.description += "OpenBLAS: not found; ";
    return;
  }
  lib.sgemm = symbol<sgemm_fn>(h, "cblas_sgemm");
  lib.dgemm = symbol<dgemm_fn>(h, "cblas_dgemm");
  lib.sgemv = symbol<sgemv_fn>(h, "cblas_sgemv");
  lib.dgemv = symbol<dgemv_fn>(h, "cblas_dgemv");
  lib.sdot = symbol<sdot_fn>(h, "cblas_sdot");
  lib.ddot = symbol<ddot_fn>(h, "cblas_ddot");
  // Single-threaded: ember splits products over its OpenMP threads (blas.h).
  if (auto set_threads = symbol<void (*)(int)>(h, "openblas_set_num_threads")) set_threads(1);
  auto corename = symbol<char* (*)()>(h, "openblas_get_corename");
  auto config = symbol<char* (*)()>(h, "openblas_get_config");
  lib.description += "OpenBLAS";
  if (config) lib.description += std::string(" [") + config() + "]";
  if (corename) lib.description += std::string(" core ") + corename();
  if (!note.empty()) lib.description += " (" + note + ")";
  lib.description += "; ";
}

void load_dnnl(Library& lib) {
  void* h = open_first({"libdnnl.so", "libdnnl.so.3", "libdnnl.so.2"});
  lib.dnnl_sgemm = symbol<dnnl_sgemm_fn>(h, "dnnl_sgemm");
  lib.description += lib.dnnl_sgemm ? "oneDNN: dnnl_sgemm; " : "oneDNN: not found; ";
}

// EMBER_BLAS=openblas | onednn | none leaves the other libraries (or all) out,
// to test and compare the fallbacks; unset or anything else loads both.
const Library& library() {
  static const Library lib = [] {
    Library l;
    const char* only = std::getenv("EMBER_BLAS");
    std::string choice = only ? only : "";
    if (choice != "onednn" && choice != "none") load_openblas(l);
    if (choice != "openblas" && choice != "none") load_dnnl(l);
    if (!choice.empty()) l.description += "EMBER_BLAS=" + choice + "; ";
    return l;
  }();
  return lib;
}

bool fits_int(std::initializer_list<int64_t> values) {
  for (int64_t v : values)
    if (v > INT_MAX) return false;
  return true;
}

// Below this many multiply-adds a product runs on one thread.
constexpr int64_t kSplitMacs = int64_t(1) << 18;
// Below this many multiply-adds float32 goes to single-threaded OpenBLAS rather
// than oneDNN (see the table at the top).
constexpr int64_t kSmallSgemmMacs = int64_t(1) << 18;
// ... and below this many, also a product with at most kNarrowColumns columns of C (a
// convolution's positions at batch 1 on a small map). Single-threaded, AMD EPYC (Zen 4),
// time of oneDNN / time of OpenBLAS: [64 x 288] @ [288 x 16] (the digits CNN's second
// convolution, bench/deploy_runtime.py) 1.29, [64 x 576] @ [576 x 16] 1.29,
// [64 x 2304] @ [2304 x 4] 4.6, [256 x 256] @ [256 x 16] 1.03, [64 x 1152] @ [1152 x 16]
// 0.98; few rows instead is no such case ([2 x 1024] @ [1024 x 512]: 0.32).
constexpr int64_t kNarrowSgemmMacs = int64_t(1) << 20;
constexpr int64_t kNarrowColumns = 16;

// Runs gemm_fn on row or column blocks of C split across ember's threads, when the
// product is big enough and we are not inside a parallel region already. Two blocks
// per thread, so that a thread the OS has descheduled holds up at most one of them.
template <typename T, typename GemmFn>
void split_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                const T* b, int64_t ldb, T* c, int64_t ldc, const GemmFn& gemm_fn) {
  const int threads = max_threads();
  if (threads <= 1 || m * n * k < kSplitMacs) {
    gemm_fn(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
    return;
  }
  bool by_cols = n >= m;
  int64_t len = by_cols ? n : m;
  // Column blocks are kept a multiple of 16 so each starts on a vector boundary.
  int64_t align = by_cols ? 16 : 1;
  const int64_t pieces = len >= 8 * align * threads ? 2 * threads : threads;
  int64_t chunk = ((len + pieces - 1) / pieces + align - 1) / align * align;
  int64_t blocks = (len + chunk - 1) / chunk;
  run_parallel(blocks, threads, [&](int64_t blk, int) {
    int64_t s = blk * chunk, e = std::min(len, s + chunk);
    if (by_cols)
      gemm_fn(ta, tb, m, e - s, k, a, lda, tb ? b + s * ldb : b + s, ldb, c + s, ldc);
    else
      gemm_fn(ta, tb, e - s, n, k, ta ? a + s : a + s * lda, lda, b, ldb, c + s * ldc, ldc);
  });
}

template <typename T>
void scale_matrix(int64_t m, int64_t n, T beta, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
}

template <typename T>
void reference_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                    int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  StridedMatrix<const T> am{a, ta ? 1 : lda, ta ? lda : 1};
  StridedMatrix<const T> bm{b, tb ? 1 : ldb, tb ? ldb : 1};
  gemm_ref<T>(m, n, k, alpha, am, bm, beta, StridedMatrix<T>{c, ldc, 1});
}

// The common part of sgemm and dgemm: empty products, and leading dimensions of
// single rows (any value is legal for us, BLAS wants >= the row length). False
// when nothing is left to compute.
template <typename T>
bool prepare_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, int64_t& lda,
                  int64_t& ldb, T beta, T* c, int64_t& ldc) {
  if (m == 0 || n == 0) return false;
  if (k == 0 || alpha == T(0)) {
    scale_matrix(m, n, beta, c, ldc);
    return false;
  }
  int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
  int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
  if (a_rows == 1) lda = std::max<int64_t>(lda, a_cols);
  if (b_rows == 1) ldb = std::max<int64_t>(ldb, b_cols);
  if (m == 1) ldc = std::max<int64_t>(ldc, n);
  return true;
}

// cblas_sgemm / cblas_dgemm (row-major) over blocks of C split across threads
// (the leading dimensions fit in int: the caller checked).
template <typename T, typename CblasGemm>
void cblas_gemm(CblasGemm blas, bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha,
                const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  split_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc,
             [&](bool ta_, bool tb_, int64_t m_, int64_t n_, int64_t k_, const T* a_, int64_t lda_,
                 const T* b_, int64_t ldb_, T* c_, int64_t ldc_) {
               blas(kRowMajor, ta_ ? kTrans : kNoTrans, tb_ ? kTrans : kNoTrans, int(m_), int(n_),
                    int(k_), alpha, a_, int(lda_), b_, int(ldb_), beta, c_, int(ldc_));
             });
}

}  // namespace

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (!prepare_gemm(ta, tb, m, n, k, alpha, lda, ldb, beta, c, ldc)) return;
  const Library& lib = library();
  bool small = m * n * k < kSmallSgemmMacs || (n <= kNarrowColumns && m * n * k < kNarrowSgemmMacs);
  if (lib.dnnl_sgemm && !(small && lib.sgemm)) {
    // Split over ember's threads, oneDNN single-threaded on each block (a task sees one
    // OpenMP thread): oneDNN's own OpenMP team would be a second set of threads beside
    // ember's pool, and its regions wait for a descheduled thread (cpu/thread_pool.h).
    // A block oneDNN refuses (it returns an error only for arguments it cannot take)
    // is computed by OpenBLAS or the reference loops instead.
    split_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc,
               [&](bool ta_, bool tb_, int64_t m_, int64_t n_, int64_t k_, const float* a_, int64_t lda_,
                   const float* b_, int64_t ldb_, float* c_, int64_t ldc_) {
                 if (lib.dnnl_sgemm(ta_ ? 'T' : 'N', tb_ ? 'T' : 'N', m_, n_, k_, alpha, a_, lda_, b_, ldb_,
                                    beta, c_, ldc_) == 0)  // dnnl_success
                   return;
                 if (lib.sgemm && fits_int({m_, n_, k_, lda_, ldb_, ldc_}))
                   lib.sgemm(kRowMajor, ta_ ? kTrans : kNoTrans, tb_ ? kTrans : kNoTrans, int(m_), int(n_),
                             int(k_), alpha, a_, int(lda_), b_, int(ldb_), beta, c_, int(ldc_));
                 else
                   reference_gemm(ta_, tb_, m_, n_, k_, alpha, a_, lda_, b_, ldb_, beta, c_, ldc_);
               });
    return;
  }
  if (lib.sgemm && fits_int({m, n, k, lda, ldb, ldc})) {
    cblas_gemm(lib.sgemm, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  reference_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
          int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (!prepare_gemm(ta, tb, m, n, k, alpha, lda, ldb, beta, c, ldc)) return;
  const Library& lib = library();
  if (lib.dgemm && fits_int({m, n, k, lda, ldb, ldc})) {
    cblas_gemm(lib.dgemm, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  reference_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

namespace {

// gemv through BLAS, split over blocks of y across threads when large.
template <typename T, typename GemvFn>
void gemv_impl(GemvFn blas_fn, bool trans, int64_t m, int64_t n, T alpha, const T* a,
               int64_t lda, const T* x, int64_t incx, T beta, T* y, int64_t incy) {
  int64_t ylen = trans ? n : m, xlen = trans ? m : n;
  if (ylen == 0) return;
  if (xlen == 0 || alpha == T(0)) {
    for (int64_t i = 0; i < ylen; ++i) y[i * incy] = beta == T(0) ? T(0) : beta * y[i * incy];
    return;
  }
  if (m == 1) lda = std::max<int64_t>(lda, n);
  if (!blas_fn || !fits_int({m, n, lda, incx, incy})) {
    StridedMatrix<const T> am{a, trans ? 1 : lda, trans ? lda : 1};
    gemm_ref<T>(ylen, 1, xlen, alpha, am, StridedMatrix<const T>{x, incx, 1}, beta,
                StridedMatrix<T>{y, incy, 1});
    return;
  }
  auto run = [&](int64_t s, int64_t e) {
    if (trans)
      blas_fn(kRowMajor, kTrans, int(m), int(e - s), alpha, a + s, int(lda), x, int(incx), beta,
              y + s * incy, int(incy));
    else
      blas_fn(kRowMajor, kNoTrans, int(e - s), int(n), alpha, a + s * lda, int(lda), x,
              int(incx), beta, y + s * incy, int(incy));
  };
  int64_t grain = std::max<int64_t>(16, kSplitMacs / xlen);
  parallel_for(0, ylen, grain, run);
}

template <typename T, typename DotFn>
T dot_impl(DotFn blas_fn, int64_t n, const T* x, int64_t incx, const T* y, int64_t incy) {
  if (!blas_fn || incx <= 0 || incy <= 0 || !fits_int({n, incx, incy})) {
    opmath_t<T> acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += x[i * incx] * y[i * incy];
    return acc;
  }
  const int threads = max_threads();
  if (threads <= 1 || n < kSplitMacs) return blas_fn(int(n), x, int(incx), y, int(incy));
  // Partial sums per piece, added in piece order: the same result whichever thread runs which.
  const int64_t pieces = 2 * threads;
  std::vector<T> partial(static_cast<size_t>(pieces), T(0));
  int64_t chunk = (n + pieces - 1) / pieces;
  run_parallel(pieces, threads, [&](int64_t t, int) {
    int64_t s = t * chunk, e = std::min(n, s + chunk);
    if (s < e) partial[t] = blas_fn(int(e - s), x + s * incx, int(incx), y + s * incy, int(incy));
  });
  T total = 0;
  for (T p : partial) total += p;
  return total;
}

}  // namespace

void gemv(bool trans, int64_t m, int64_t n, float alpha, const float* a, int64_t lda,
          const float* x, int64_t incx, float beta, float* y, int64_t incy) {
  gemv_impl<float>(library().sgemv, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
void gemv(bool trans, int64_t m, int64_t n, double alpha, const double* a, int64_t lda,
          const double* x, int64_t incx, double beta, double* y, int64_t incy) {
  gemv_impl<double>(library().dgemv, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

float dot(int64_t n, const float* x, int64_t incx, const float* y, int64_t incy) {
  return dot_impl<float>(library().sdot, n, x, incx, y, incy);
}
double dot(int64_t n, const double* x, int64_t incx, const double* y, int64_t incy) {
  return dot_impl<double>(library().ddot, n, x, incx, y, incy);
}

std::string describe() {
  const Library& lib = library();
  std::string s = lib.description;
  s += std::string("float32 gemm: ") +
       (lib.dnnl_sgemm ? (lib.sgemm ? "oneDNN (OpenBLAS below 64^3)" : "oneDNN")
                       : (lib.sgemm ? "OpenBLAS" : "reference loops")) +
       "; float64 gemm, gemv, dot: " + (lib.dgemm ? "OpenBLAS" : "reference loops");
  return s;
}

}  // namespace ember::cpu::blas
