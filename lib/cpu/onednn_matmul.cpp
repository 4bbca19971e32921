// bfloat16 matmul through oneDNN (onednn_matmul.h).
//
// Loading: oneDNN is opened on first use (onednn_api.h, shared with the
// convolutions), so ember builds and runs without it (then the float32 fallback of
// matmul.cpp runs).
//
// Layouts: ember's strided operands are described to oneDNN by their strides, so
// a transposed weight (linear's w.t()) or a batch of slices is read in place.
// Primitive: built once per (shapes, strides, alpha, beta, thread count) and kept
// in a small LRU cache (building one jits code: 0.1-1 ms). alpha is an output
// scale, beta a sum post-op (dst = alpha * acc + beta * dst in float32, one
// rounding). The implementation oneDNN picks is checked: a "ref" one (a CPU
// without AVX-512 BF16 or AVX512-core emulation) is declined, the float32
// fallback being much faster than reference loops.
//
// Threads: a large single product is split into blocks of rows of c over ember's
// thread pool, each block a single-threaded primitive, as blas.cpp runs float32
// (measured on the 2-core Zen 4, idle: the same speed as oneDNN's own OpenMP split,
// 1024^3 in 4.9 ms, 2048^3 in 40 ms; the pool keeps one set of threads). Smaller
// products and batches run one primitive on OpenMP's threads (omp_set_num_threads,
// as ember sets them), one thread inside a parallel region.
#include "cpu/onednn_matmul.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cpu/parallel.h"
#include "cpu/thread_pool.h"
#include "ember/ops/factories.h"

#include "cpu/onednn_api.h"

namespace ember::cpu::onednn {

#if EMBER_DNNL_USABLE

namespace {

struct Prepared {
  dnnl_primitive_t prim = nullptr;
  dnnl_memory_desc_t a_md{}, b_md{}, c_md{}, scratch_md{};
  size_t scratch_bytes = 0;
  std::string impl;
  ~Prepared() {
    if (prim) api().dnnl_primitive_destroy(prim);
  }
};

// A matrix batch's descriptor. Strides of size-1 dims do not matter to ember but
// oneDNN wants them consistent: they get the extent of the dims inside.
bool describe(const MatrixBatch& x, dnnl_memory_desc_t* md) {
  dnnl_dims_t dims = {x.batch, x.rows, x.cols};
  dnnl_dims_t strides = {x.stride[0], x.stride[1], x.stride[2]};
  if (x.cols == 1) strides[2] = 1;
  if (x.rows == 1) strides[1] = x.cols * strides[2];
  if (x.batch == 1) strides[0] = std::max(x.rows * strides[1], x.cols * strides[2]);
  for (int d = 0; d < 3; ++d)
    if (strides[d] <= 0) return false;  // broadcast (stride 0) operands: the fallback
  return api().dnnl_memory_desc_init_by_strides(md, 3, dims, dnnl_bf16, strides) == dnnl_success;
}

struct Guards {
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_post_ops_t post = nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  ~Guards() {
    if (pd) api().dnnl_primitive_desc_destroy(pd);
    if (post) api().dnnl_post_ops_destroy(post);
    if (attr) api().dnnl_primitive_attr_destroy(attr);
  }
};

std::shared_ptr<Prepared> prepare(const MatrixBatch& a, const MatrixBatch& b, const MatrixBatch& c,
                                  float alpha, float beta) {
  const Api& A = api();
  auto p = std::make_shared<Prepared>();
  if (!describe(a, &p->a_md) || !describe(b, &p->b_md) || !describe(c, &p->c_md)) return nullptr;
  dnnl_matmul_desc_t md;
  if (A.dnnl_matmul_desc_init(&md, &p->a_md, &p->b_md, nullptr, &p->c_md) != dnnl_success) return nullptr;
  Guards g;
  if (A.dnnl_primitive_attr_create(&g.attr) != dnnl_success ||
      A.dnnl_primitive_attr_set_scratchpad_mode(g.attr, dnnl_scratchpad_mode_user) != dnnl_success)
    return nullptr;
  if (alpha != 1.0f && A.dnnl_primitive_attr_set_output_scales(g.attr, 1, 0, &alpha) != dnnl_success)
    return nullptr;
  if (beta != 0.0f) {
    if (A.dnnl_post_ops_create(&g.post) != dnnl_success || A.dnnl_post_ops_append_sum(g.post, beta) != dnnl_success ||
        A.dnnl_primitive_attr_set_post_ops(g.attr, g.post) != dnnl_success)
      return nullptr;
  }
  if (A.dnnl_primitive_desc_create(&g.pd, &md, g.attr, A.engine, nullptr) != dnnl_success) return nullptr;
  const char* impl = nullptr;
  if (A.dnnl_primitive_desc_query(g.pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || !impl) return nullptr;
  p->impl = impl;
  if (p->impl.rfind("ref", 0) == 0) return nullptr;  // reference loops: slower than the fallback
  if (const dnnl_memory_desc_t* s = A.dnnl_primitive_desc_query_md(g.pd, dnnl_query_scratchpad_md, 0)) {
    p->scratch_md = *s;
    p->scratch_bytes = A.dnnl_memory_desc_get_size(s);
  }
  if (A.dnnl_primitive_create(&p->prim, g.pd) != dnnl_success) return nullptr;
  return p;
}

constexpr size_t kCacheSize = 128;
using Key = std::array<int64_t, 22>;

// threads: the OpenMP threads oneDNN will run the primitive on (it fixes its work split
// when it builds one).
Key make_key(const MatrixBatch& a, const MatrixBatch& b, const MatrixBatch& c, float alpha, float beta,
             int threads) {
  uint32_t ab, bb;
  std::memcpy(&ab, &alpha, 4);
  std::memcpy(&bb, &beta, 4);
  return {a.batch,     a.rows,      a.cols,      a.stride[0], a.stride[1], a.stride[2], b.batch, b.rows,
          b.cols,      b.stride[0], b.stride[1], b.stride[2], c.batch,     c.rows,      c.cols,  c.stride[0],
          c.stride[1], c.stride[2], int64_t(ab), int64_t(bb), threads,     0};
}

struct Cache {
  std::mutex mu;
  std::list<std::pair<Key, std::shared_ptr<Prepared>>> lru;
  std::map<Key, decltype(lru)::iterator> map;
  std::string last_impl;

  std::shared_ptr<Prepared> get(const MatrixBatch& a, const MatrixBatch& b, const MatrixBatch& c, float alpha,
                                float beta, int threads) {
    Key key = make_key(a, b, c, alpha, beta, threads);
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = map.find(key);
      if (it != map.end()) {
        lru.splice(lru.begin(), lru, it->second);
        return it->second->second;
      }
    }
    std::shared_ptr<Prepared> p = prepare(a, b, c, alpha, beta);  // outside the lock: jit takes time
    std::lock_guard<std::mutex> lock(mu);
    if (p) last_impl = p->impl;
    auto it = map.find(key);
    if (it != map.end()) return it->second->second;
    lru.emplace_front(key, p);  // a rejected shape is remembered too (nullptr)
    map[key] = lru.begin();
    if (lru.size() > kCacheSize) {
      map.erase(lru.back().first);
      lru.pop_back();
    }
    return p;
  }
};

Cache& cache() {
  static Cache* c = new Cache();  // never destroyed: primitives may outlive exit order
  return *c;
}

// Runs one prepared product.
bool execute(const Prepared* p, const BFloat16* ap, const BFloat16* bp, BFloat16* cp) {
  const Api& A = api();
  dnnl_stream_t stream = thread_stream();
  if (!p || !stream) return false;
  dnnl_memory_t mems[4] = {nullptr, nullptr, nullptr, nullptr};
  Tensor scratch;
  bool ok = A.dnnl_memory_create(&mems[0], &p->a_md, A.engine, const_cast<BFloat16*>(ap)) == dnnl_success &&
            A.dnnl_memory_create(&mems[1], &p->b_md, A.engine, const_cast<BFloat16*>(bp)) == dnnl_success &&
            A.dnnl_memory_create(&mems[2], &p->c_md, A.engine, cp) == dnnl_success;
  std::vector<dnnl_exec_arg_t> args;
  if (ok) args = {{DNNL_ARG_SRC, mems[0]}, {DNNL_ARG_WEIGHTS, mems[1]}, {DNNL_ARG_DST, mems[2]}};
  if (ok && p->scratch_bytes > 0) {
    scratch = empty(IntList{static_cast<int64_t>(p->scratch_bytes)}, TensorOptions(kUInt8));
    ok = A.dnnl_memory_create(&mems[3], &p->scratch_md, A.engine, scratch.data_ptr()) == dnnl_success;
    args.push_back({DNNL_ARG_SCRATCHPAD, mems[3]});
  }
  ok = ok && A.dnnl_primitive_execute(p->prim, stream, static_cast<int>(args.size()), args.data()) == dnnl_success &&
       A.dnnl_stream_wait(stream) == dnnl_success;
  for (dnnl_memory_t m : mems)
    if (m) A.dnnl_memory_destroy(m);
  return ok;
}

// The first `count` rows of x (the blocks are these at an offset).
MatrixBatch rows_of(const MatrixBatch& x, int64_t count) {
  MatrixBatch r = x;
  r.rows = count;
  return r;
}

// Products below this many multiply-adds run on the calling thread.
constexpr int64_t kSplitMacs = int64_t(1) << 21;

}  // namespace

bool matmul_bf16(const MatrixBatch& a, const BFloat16* ap, const MatrixBatch& b, const BFloat16* bp,
                 const MatrixBatch& c, BFloat16* cp, float alpha, float beta) {
  const Api& A = api();
  // Empty products (k == 0 divides by zero inside oneDNN 2.6): the fallback's beta scaling.
  if (!A.ok || a.batch == 0 || a.rows == 0 || a.cols == 0 || b.cols == 0) return false;
  const int threads = max_threads();
  const int64_t m = a.rows;
  if (threads <= 1 || a.batch != 1 || m < 2 * threads || m * b.cols * a.cols < kSplitMacs) {
    const int omp_threads = omp_in_parallel() ? 1 : omp_get_max_threads();
    return execute(cache().get(a, b, c, alpha, beta, omp_threads).get(), ap, bp, cp);
  }
  // Blocks of rows of c over ember's threads, oneDNN single-threaded in each (a task
  // sees one OpenMP thread), as blas.cpp runs float32: oneDNN's OpenMP team beside
  // ember's pool would be a second set of threads, and its barriers wait for a
  // descheduled thread. Two blocks per thread; a multiple of 16 rows each.
  const int64_t pieces = m >= 32 * threads ? 2 * threads : threads;
  const int64_t chunk = ((m + pieces - 1) / pieces + 15) / 16 * 16;
  const int64_t blocks = (m + chunk - 1) / chunk, last = m - (blocks - 1) * chunk;
  // Both shapes' primitives first, single-threaded as the tasks run them: a shape
  // oneDNN declines then falls back before any block has written c.
  std::shared_ptr<Prepared> full = cache().get(rows_of(a, chunk), b, rows_of(c, chunk), alpha, beta, 1);
  std::shared_ptr<Prepared> tail =
      last == chunk ? full : cache().get(rows_of(a, last), b, rows_of(c, last), alpha, beta, 1);
  if (!full || !tail) return false;
  std::atomic<bool> ok{true};
  run_parallel(blocks, threads, [&](int64_t blk, int) {
    const int64_t r = blk * chunk;
    if (!execute(r + chunk <= m ? full.get() : tail.get(), ap + r * a.stride[1], bp, cp + r * c.stride[1]))
      ok = false;
  });
  return ok.load();
}

std::string matmul_bf16_impl() {
  std::lock_guard<std::mutex> lock(cache().mu);
  return cache().last_impl;
}

#else  // no oneDNN 2.x headers at build time: always the fallback

bool matmul_bf16(const MatrixBatch&, const BFloat16*, const MatrixBatch&, const BFloat16*, const MatrixBatch&,
                 BFloat16*, float, float) {
  return false;
}
std::string matmul_bf16_impl() { return ""; }

#endif

}  // namespace ember::cpu::onednn
