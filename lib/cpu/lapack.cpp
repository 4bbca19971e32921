// The LAPACK loader: see lapack.h. The Fortran ABI: every argument by pointer, and
// gfortran's hidden string lengths (size_t, one per character argument) at the end;
// OpenBLAS's own C implementations (getrf, potrf, trsm) ignore the extra arguments.
#include "cpu/lapack.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "cpu/blas.h"
#include "ember/error.h"

namespace ember::cpu::lapack {

namespace {

using len_t = size_t;  // gfortran's hidden character length

template <typename T> struct Routines {
  int (*getrf)(const int*, const int*, T*, const int*, int*, int*) = nullptr;
  int (*potrf)(const char*, const int*, T*, const int*, int*, len_t) = nullptr;
  void (*trsm)(const char*, const char*, const char*, const char*, const int*, const int*, const T*, const T*,
               const int*, T*, const int*, len_t, len_t, len_t, len_t) = nullptr;
  void (*geqrf)(const int*, const int*, T*, const int*, T*, T*, const int*, int*) = nullptr;
  void (*orgqr)(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*) = nullptr;
  void (*syevd)(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, int*, const int*,
                int*, len_t, len_t) = nullptr;
  void (*gesdd)(const char*, const int*, const int*, T*, const int*, T*, T*, const int*, T*, const int*, T*,
                const int*, int*, int*, len_t) = nullptr;
  bool complete() const { return getrf && potrf && trsm && geqrf && orgqr && syevd && gesdd; }
};

struct Library {
  Routines<float> s;
  Routines<double> d;
  bool ok = false;
};

template <typename F>
void find(void* h, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(h, name));
}

const Library& library() {
  static const Library lib = [] {
    Library l;
    blas::describe();  // opens OpenBLAS first, with OPENBLAS_CORETYPE set (Note [BLAS loading])
    void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return l;
    find(h, "sgetrf_", l.s.getrf), find(h, "dgetrf_", l.d.getrf);
    find(h, "spotrf_", l.s.potrf), find(h, "dpotrf_", l.d.potrf);
    find(h, "strsm_", l.s.trsm), find(h, "dtrsm_", l.d.trsm);
    find(h, "sgeqrf_", l.s.geqrf), find(h, "dgeqrf_", l.d.geqrf);
    find(h, "sorgqr_", l.s.orgqr), find(h, "dorgqr_", l.d.orgqr);
    find(h, "ssyevd_", l.s.syevd), find(h, "dsyevd_", l.d.syevd);
    find(h, "sgesdd_", l.s.gesdd), find(h, "dgesdd_", l.d.gesdd);
    l.ok = l.s.complete() && l.d.complete();
    return l;
  }();
  return lib;
}

template <typename T> const Routines<T>& routines();
template <> const Routines<float>& routines<float>() { return library().s; }
template <> const Routines<double>& routines<double>() { return library().d; }

// A workspace size LAPACK reported (as a T), made an int of at least `floor`.
template <typename T> int work_size(T query, int floor) {
  return std::max(floor, static_cast<int>(query) + 1);
}

}  // namespace

bool available() { return library().ok; }

void require(const char* op) {
  EMBER_CHECK(available(), op, ": LAPACK was not found (ember takes it from OpenBLAS, libopenblas.so.0); "
              "install OpenBLAS to use the matrix decompositions");
}

template <typename T> int getrf(int m, int n, T* a, int lda, int* ipiv) {
  int info = 0;
  routines<T>().getrf(&m, &n, a, &lda, ipiv, &info);
  return info;
}

template <typename T> int potrf(char uplo, int n, T* a, int lda) {
  int info = 0;
  routines<T>().potrf(&uplo, &n, a, &lda, &info, 1);
  return info;
}

template <typename T>
void trsm(char side, char uplo, char transa, char diag, int m, int n, T alpha, const T* a, int lda, T* b,
          int ldb) {
  routines<T>().trsm(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
}

template <typename T> int geqrf(int m, int n, T* a, int lda, T* tau) {
  int info = 0, query = -1;
  T size = 0;
  routines<T>().geqrf(&m, &n, a, &lda, tau, &size, &query, &info);
  int lwork = work_size(size, std::max(1, n));
  std::vector<T> work(lwork);
  routines<T>().geqrf(&m, &n, a, &lda, tau, work.data(), &lwork, &info);
  return info;
}

template <typename T> int orgqr(int m, int n, int k, T* a, int lda, const T* tau) {
  int info = 0, query = -1;
  T size = 0;
  routines<T>().orgqr(&m, &n, &k, a, &lda, tau, &size, &query, &info);
  int lwork = work_size(size, std::max(1, n));
  std::vector<T> work(lwork);
  routines<T>().orgqr(&m, &n, &k, a, &lda, tau, work.data(), &lwork, &info);
  return info;
}

template <typename T> int syevd(char jobz, char uplo, int n, T* a, int lda, T* w) {
  int info = 0, query = -1, isize = 0;
  T size = 0;
  routines<T>().syevd(&jobz, &uplo, &n, a, &lda, w, &size, &query, &isize, &query, &info, 1, 1);
  int lwork = work_size(size, 1 + 6 * n + 2 * n * n), liwork = std::max(isize, 3 + 5 * n);
  std::vector<T> work(lwork);
  std::vector<int> iwork(liwork);
  routines<T>().syevd(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  return info;
}

template <typename T>
int gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt) {
  int info = 0, query = -1, k = std::min(m, n);
  std::vector<int> iwork(std::max(1, 8 * k));
  T size = 0;
  routines<T>().gesdd(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &size, &query, iwork.data(), &info, 1);
  int lwork = work_size(size, 1);
  std::vector<T> work(lwork);
  routines<T>().gesdd(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, iwork.data(), &info,
                      1);
  return info;
}

#define EMBER_LAPACK_INSTANTIATE(T)                                                                    \
  template int getrf<T>(int, int, T*, int, int*);                                                      \
  template int potrf<T>(char, int, T*, int);                                                           \
  template void trsm<T>(char, char, char, char, int, int, T, const T*, int, T*, int);                  \
  template int geqrf<T>(int, int, T*, int, T*);                                                        \
  template int orgqr<T>(int, int, int, T*, int, const T*);                                             \
  template int syevd<T>(char, char, int, T*, int, T*);                                                 \
  template int gesdd<T>(char, int, int, T*, int, T*, T*, int, T*, int);
EMBER_LAPACK_INSTANTIATE(float)
EMBER_LAPACK_INSTANTIATE(double)
#undef EMBER_LAPACK_INSTANTIATE

}  // namespace ember::cpu::lapack
