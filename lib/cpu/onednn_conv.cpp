// float32 2-d convolutions through oneDNN (see onednn_conv.h).
//
// Loading: oneDNN is opened on first use (onednn_api.h, shared with the bfloat16
// products), so ember builds and runs without it and then always takes the im2col
// path.
//
// Caching: building a primitive costs 0.1-1 ms (jit code generation), as much
// as running a small convolution, so each (direction, shapes, strides, padding,
// dilation, groups, thread count) gets one primitive, kept in a thread-safe LRU
// cache of kCacheSize entries; a training loop builds each layer's three
// primitives once. The thread count is in the key because oneDNN fixes its work
// split when it builds a primitive.
//
// Layouts: the primitives are asked for the layouts they prefer (format `any`:
// on AVX-512 oneDNN picks its direct jit:avx512_core kernels on channels
// blocked by 16, nChw16c, as DNNL_VERBOSE=1 shows); ember's nchw tensors are
// reordered into them and the result back, each at most once per call, through
// reorder primitives cached with the convolution (a reorder of a [8,64,7,7]
// tensor takes ~0.02 ms). Plain nchw descriptors would steer oneDNN to its
// gemm-based convolution, the method of ember's own path (not benchmarked).
// Scratch memory is allocated per call (scratchpad mode `user`), so one cached
// primitive can run on several threads at once.
//
// Threads: Debian's oneDNN uses OpenMP (libgomp, ember's own runtime), so it
// follows omp_set_num_threads (ember.set_num_threads, OMP_NUM_THREADS); called
// inside a parallel region it runs on the calling thread.
#include "cpu/onednn_conv.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/error.h"
#include "cpu/parallel.h"
#include "ember/ops/factories.h"

#include "cpu/onednn_api.h"

namespace ember::cpu::onednn {

namespace {

// Which backend the kernels use: the rule, or one forced.
enum class Backend { rule, im2col, onednn };

Backend backend_from_env() {
  const char* v = std::getenv("EMBER_CONV_BACKEND");
  if (!v) return Backend::rule;
  if (std::strcmp(v, "im2col") == 0) return Backend::im2col;
  if (std::strcmp(v, "onednn") == 0) return Backend::onednn;
  return Backend::rule;  // "auto" or unknown: the rule (an env var should not crash a program)
}

std::atomic<Backend>& forced_backend() {
  static std::atomic<Backend> b{backend_from_env()};
  return b;
}

std::atomic<int64_t> g_primitives_created{0};

}  // namespace

void set_conv_backend(const std::string& backend) {
  if (backend == "auto") forced_backend() = Backend::rule;
  else if (backend == "im2col") forced_backend() = Backend::im2col;
  else if (backend == "onednn") forced_backend() = Backend::onednn;
  else
    EMBER_CHECK_VALUE(false, "set_conv_backend: expected 'auto', 'im2col' or 'onednn', got '", backend, "'");
}

std::string conv_backend() {
  switch (forced_backend().load()) {
    case Backend::im2col: return "im2col";
    case Backend::onednn: return "onednn";
    default: return "auto";
  }
}

int64_t primitives_created() { return g_primitives_created.load(); }

namespace {

// Taps that read only padding. On maps smaller than the kernel most taps of a
// padded kernel never touch the image: ResNet-18's 3x3 layers on a 1x1 map use
// only the centre tap, the stride-2 one from 2x2 to 1x1 four of nine. oneDNN's
// direct kernels skip such taps in their loops, but the weights are still
// reordered whole (9.4 MB for 512x512x3x3, ~1 ms per call) and backward-weights
// still computes zeros for them; so the problem is cut to the live taps before
// oneDNN sees it: a smaller kernel, the padding reduced by the taps cut, the
// weights read (or their gradient written) through strides into the full tensor,
// the dead taps' gradient set to zero. Only leading and trailing runs of dead taps
// are cut (a dead tap between live ones stays). The result is the same sum: the
// cut taps only add products with padding zeros.
struct Trimmed {
  Conv2dShape s;          // kh, kw: the live taps; ph, pw: the left/top padding
  int64_t pr_h, pr_w;     // the right/bottom padding
  int64_t first_h, first_w;  // the first live tap in the full kernel
  int64_t full_kh, full_kw;
  bool cut() const { return s.kh != full_kh || s.kw != full_kw; }
};

// One dimension: image size `in`, output size `out`. Sets first/count/pad_l/pad_r
// of the live taps; leaves the full kernel when nothing (or everything) is dead or
// when the cut kernel would need a negative padding.
void trim_dim(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad, int64_t dil, int64_t& first,
              int64_t& count, int64_t& pad_l, int64_t& pad_r) {
  first = 0, count = k, pad_l = pad, pad_r = pad;
  auto live = [&](int64_t t) {  // output o reads position o * stride + t * dil - pad
    const int64_t off = t * dil - pad;
    const int64_t o = off >= 0 ? 0 : (-off + stride - 1) / stride;  // the first o reading position >= 0
    return o < out && o * stride + off < in;
  };
  int64_t a = 0, b = k - 1;
  while (a <= b && !live(a)) ++a;
  while (b >= a && !live(b)) --b;
  if (a > b || (a == 0 && b == k - 1)) return;
  const int64_t pl = pad - a * dil, keff = (b - a) * dil + 1;
  // (out - 1) * stride + keff <= in + pl + pr < out * stride + keff, as oneDNN checks out's size
  int64_t pr = (out - 1) * stride + keff - in - pl;
  if (pr < 0) pr = 0;
  if (pl < 0 || (in + pl + pr - keff) / stride + 1 != out) return;
  first = a, count = b - a + 1, pad_l = pl, pad_r = pr;
}

Trimmed trim(const Conv2dShape& s) {
  Trimmed t{s, s.ph, s.pw, 0, 0, s.kh, s.kw};
  trim_dim(s.height, s.out_h, s.kh, s.sh, s.ph, s.dh, t.first_h, t.s.kh, t.s.ph, t.pr_h);
  trim_dim(s.width, s.out_w, s.kw, s.sw, s.pw, s.dw, t.first_w, t.s.kw, t.s.pw, t.pr_w);
  return t;
}

}  // namespace

// The measured rule. bench/conv_backends.py and bench/conv_resnet_layers.py, AMD
// EPYC (AVX-512), 2 cores, oneDNN 2.6 with its direct kernels and the cut taps
// (above), the fastest of many calls, 1 thread (the machine was shared: a busy
// second core stalls every 2-thread call by a time slice), time of im2col / time
// of oneDNN (above 1: oneDNN faster), fwd | bwd-data | bwd-weights:
//
//   [32,1,8,8] -> 16 3x3 (digits CNN conv1, 0.3M MACs)   1.5  | 0.18 | 1.4
//   [32,16,4,4] -> 32 3x3 (digits CNN conv2, 2.4M MACs)  3.0  | 1.7  | 3.0
//   [32,3,32,32] -> 64 3x3 (K = 27)                       0.81 | 0.22 | 3.8
//   [32,8,32,32] -> 16 3x3 (K = 72)                       0.93 | 0.67 | 1.7
//   [32,16,32,32] -> 16 3x3 (K = 144)                     0.95 | 1.3  | 1.6
//   [64,3,28,28] -> 64 7x7/2 (ResNet's stem)              1.8  | 0.28 | 2.0
//   [64,64,7,7] -> 64 3x3 (ResNet-18 layer1 at 28x28)     1.7  | 2.1  | 1.6
//   [64,256,2,2] -> 256 3x3 (map smaller than the kernel) 2.1  | 8.1  | 2.6
//   [64,256,2,2] -> 512 3x3/2 (4 of 9 taps live)          1.6  | 2.2  | 7.1
//   [64,512,1,1] -> 512 3x3 (the centre tap only)         7.4  | 12   | 35
//   [64,64,7,7] -> 128 1x1/2 (downsample)                 1.3  | 0.68 | 1.5
//   [64,128,4,4] -> 256 1x1/2                             1.1  | 1.6  | 2.2
//   [8,64,56,56] -> 256 1x1 (a plain matrix product)      0.72 | 0.68 | 1.1
//   [32,256,14,14] -> 64 1x1                              0.87 | 0.96 | 1.04
//   [8,64,56,56] -> 64 3x3, [8,512,7,7] -> 512 3x3        1.1-1.3 | 1.2-1.6 | 1.1-1.3
//   depthwise 3x3 [8,32,56,56], [32,128,14,14]             2.3-3.8 | 2.7-3.6 | 2.8-4.4
//
// So: tiny problems stay with im2col (oneDNN's per-call cost, reorders and setup,
// is larger than the work; im2col also runs them on the calling thread, without a
// parallel region); so do 1x1 stride-1 convolutions without padding, forward and
// backward-data (im2col's path is one plain matrix product there); the forward and
// backward-data of dense convolutions with few input channels per output
// (K = C_in/g * kh * kw < 128 after the cut: oneDNN pads the channels to blocks of
// 16), except the forward of strided 1x1 kernels and depthwise convolutions, which
// oneDNN does well; and the backward-data of a strided 1x1 kernel with fewer than
// 128 input channels. Everything else, and every backward-weights, goes to oneDNN.
constexpr int64_t kMinOnednnMacs = int64_t(1) << 20;
constexpr int64_t kMinColumnRows = 128;
constexpr int64_t kMinBackwardDataChannels = 16;
constexpr int64_t kMinStrided1x1BackwardDataChannels = 128;

bool prefer_onednn(const Conv2dShape& full, ConvDirection d) {
  switch (forced_backend().load()) {
    case Backend::im2col: return false;
    case Backend::onednn: return true;
    default: break;
  }
  const Conv2dShape s = trim(full).s;  // the work oneDNN would do
  const int64_t in_per_group = s.in_channels / std::max<int64_t>(s.groups, 1);
  const int64_t taps = s.kh * s.kw;
  const int64_t macs = s.batch * s.out_channels * in_per_group * taps * s.out_h * s.out_w;
  const bool depthwise = s.groups > 1 && in_per_group == 1;
  const bool one_by_one = full.kh == 1 && full.kw == 1;
  const bool pointwise = one_by_one && full.sh == 1 && full.sw == 1 && full.ph == 0 && full.pw == 0;
  const bool few_rows = !depthwise && in_per_group * taps < kMinColumnRows;
  if (macs < kMinOnednnMacs) return false;
  switch (d) {
    case ConvDirection::forward: return !pointwise && (!few_rows || one_by_one);
    case ConvDirection::backward_data:
      return depthwise || (!pointwise && !few_rows && in_per_group >= kMinBackwardDataChannels &&
                           (!one_by_one || in_per_group >= kMinStrided1x1BackwardDataChannels));
    case ConvDirection::backward_weights: return true;
  }
  return true;
}

#if EMBER_DNNL_USABLE

namespace {

// A convolution primitive with the reorders around it. Operands are numbered
// 0 and 1 (the inputs) and 2 (the output); `args` are their DNNL_ARG_* names.
struct Prepared {
  dnnl_primitive_t conv = nullptr;
  std::array<int, 3> args{};
  std::array<dnnl_memory_desc_t, 3> user_md{};  // ember's plain layouts
  std::array<dnnl_memory_desc_t, 3> prim_md{};  // the primitive's layouts
  std::array<dnnl_primitive_t, 3> reorder{};    // user -> primitive for 0, 1; primitive -> user for 2
  bool has_bias = false;
  dnnl_memory_desc_t bias_md{};
  dnnl_memory_desc_t scratch_md{};
  size_t scratch_bytes = 0;

  ~Prepared() {
    if (conv) api().dnnl_primitive_destroy(conv);
    for (dnnl_primitive_t r : reorder)
      if (r) api().dnnl_primitive_destroy(r);
  }
};

// Owns a primitive descriptor until the end of scope.
struct PdGuard {
  dnnl_primitive_desc_t pd = nullptr;
  ~PdGuard() {
    if (pd) api().dnnl_primitive_desc_destroy(pd);
  }
};

struct AttrGuard {
  dnnl_primitive_attr_t attr = nullptr;
  ~AttrGuard() {
    if (attr) api().dnnl_primitive_attr_destroy(attr);
  }
};

bool make_reorder(const dnnl_memory_desc_t& from, const dnnl_memory_desc_t& to, dnnl_primitive_t* out) {
  const Api& A = api();
  if (A.dnnl_memory_desc_equal(&from, &to)) return true;  // no reorder needed
  PdGuard pd;
  if (A.dnnl_reorder_primitive_desc_create(&pd.pd, &from, A.engine, &to, A.engine, nullptr) != dnnl_success)
    return false;
  return A.dnnl_primitive_create(out, pd.pd) == dnnl_success;
}

// Memory descriptors of ember's nchw operands, and the same shapes with format `any`.
struct Descs {
  dnnl_memory_desc_t x, w, y, b, x_any, w_any, y_any;
  dnnl_dims_t strides, dilates, pad_l, pad_r;
};

bool make_descs(const Trimmed& t, bool has_bias, Descs& d) {
  const Api& A = api();
  const Conv2dShape& s = t.s;
  const int64_t g = s.groups, opg = s.out_channels / g, ipg = s.in_channels / g;
  dnnl_dims_t xd = {s.batch, s.in_channels, s.height, s.width};
  dnnl_dims_t yd = {s.batch, s.out_channels, s.out_h, s.out_w};
  dnnl_dims_t wd = {g, opg, ipg, s.kh, s.kw};
  dnnl_dims_t w1 = {s.out_channels, s.in_channels, s.kh, s.kw};
  dnnl_dims_t bd = {s.out_channels};
  // ember's weights: the live taps of the full [g, opg, ipg, kh, kw] tensor (plain goihw/oihw when none is cut)
  const int64_t plane = t.full_kh * t.full_kw;
  dnnl_dims_t ws = {opg * ipg * plane, ipg * plane, plane, t.full_kw, 1};
  bool grouped = g > 1;
  bool ok = A.dnnl_memory_desc_init_by_tag(&d.x, 4, xd, dnnl_f32, dnnl_nchw) == dnnl_success &&
            A.dnnl_memory_desc_init_by_tag(&d.y, 4, yd, dnnl_f32, dnnl_nchw) == dnnl_success &&
            A.dnnl_memory_desc_init_by_strides(&d.w, grouped ? 5 : 4, grouped ? wd : w1, dnnl_f32,
                                               grouped ? ws : ws + 1) == dnnl_success &&
            A.dnnl_memory_desc_init_by_tag(&d.b, 1, bd, dnnl_f32, dnnl_x) == dnnl_success &&
            A.dnnl_memory_desc_init_by_tag(&d.x_any, 4, xd, dnnl_f32, dnnl_format_tag_any) == dnnl_success &&
            A.dnnl_memory_desc_init_by_tag(&d.y_any, 4, yd, dnnl_f32, dnnl_format_tag_any) == dnnl_success &&
            A.dnnl_memory_desc_init_by_tag(&d.w_any, grouped ? 5 : 4, grouped ? wd : w1, dnnl_f32,
                                           dnnl_format_tag_any) == dnnl_success;
  (void)has_bias;
  // oneDNN's dilation counts the gaps (0 = dense). The right padding equals the
  // left unless taps were cut (trim): oneDNN checks (H - k_eff + pl + pr) / s + 1 == OH
  // with integer division, as conv2d computes OH, so rows the stride skips need no trimming.
  int64_t vals[4][2] = {{s.sh, s.sw}, {s.dh - 1, s.dw - 1}, {s.ph, s.pw}, {t.pr_h, t.pr_w}};
  int64_t* outs[4] = {d.strides, d.dilates, d.pad_l, d.pad_r};
  for (int i = 0; i < 4; ++i) {
    outs[i][0] = vals[i][0];
    outs[i][1] = vals[i][1];
  }
  return ok;
}

// The algorithm asked of oneDNN. `auto` lets oneDNN 2.6 pick Winograd
// (jit_wino_4x3) for every 3x3 stride-1 layer of 64+ channels, also on maps of
// 1x1 to 4x4 where its 6x6 tiles are mostly padding: ResNet-18's 512-channel
// 1x1-map layer took 9.5 ms forward against 0.8 ms with the direct kernel
// (DNNL_VERBOSE, 2 threads). PyTorch's oneDNN 3 runs the direct jit:avx512_core
// kernels on all of ResNet-18's layers. EMBER_ONEDNN_CONV_ALGO=auto|winograd
// (read once) is there to compare, bench/conv_backends.py.
dnnl_alg_kind_t conv_algorithm() {
  static const dnnl_alg_kind_t alg = [] {
    const char* v = std::getenv("EMBER_ONEDNN_CONV_ALGO");
    if (v && std::strcmp(v, "auto") == 0) return dnnl_convolution_auto;
    if (v && std::strcmp(v, "winograd") == 0) return dnnl_convolution_winograd;
    return dnnl_convolution_direct;
  }();
  return alg;
}

// The forward primitive descriptor (also the hint the backward ones need).
bool forward_pd(const Descs& d, bool has_bias, bool any, const_dnnl_primitive_attr_t attr, PdGuard& pd) {
  const Api& A = api();
  dnnl_convolution_desc_t cd;
  if (A.dnnl_dilated_convolution_forward_desc_init(
          &cd, dnnl_forward_training, conv_algorithm(), any ? &d.x_any : &d.x, any ? &d.w_any : &d.w,
          has_bias ? &d.b : nullptr, any ? &d.y_any : &d.y, d.strides, d.dilates, d.pad_l, d.pad_r) != dnnl_success)
    return false;
  return A.dnnl_primitive_desc_create(&pd.pd, &cd, attr, A.engine, nullptr) == dnnl_success;
}

std::shared_ptr<Prepared> prepare(const Conv2dShape& s, ConvDirection dir, bool has_bias) {
  const Api& A = api();
  Descs d;
  if (!make_descs(trim(s), has_bias, d)) return nullptr;
  AttrGuard attr;
  if (A.dnnl_primitive_attr_create(&attr.attr) != dnnl_success ||
      A.dnnl_primitive_attr_set_scratchpad_mode(attr.attr, dnnl_scratchpad_mode_user) != dnnl_success)
    return nullptr;
  const bool any = true;
  auto p = std::make_shared<Prepared>();
  PdGuard fwd, pd;
  dnnl_convolution_desc_t cd;
  std::array<dnnl_query_t, 3> queries{};
  if (dir == ConvDirection::forward) {
    if (!forward_pd(d, has_bias, any, attr.attr, pd)) return nullptr;
    p->args = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    p->user_md = {d.x, d.w, d.y};
    queries = {dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md};
    p->has_bias = has_bias;
    p->bias_md = d.b;
  } else if (dir == ConvDirection::backward_data) {
    if (!forward_pd(d, false, any, nullptr, fwd)) return nullptr;
    if (A.dnnl_dilated_convolution_backward_data_desc_init(&cd, conv_algorithm(), any ? &d.x_any : &d.x,
                                                           any ? &d.w_any : &d.w, any ? &d.y_any : &d.y,
                                                           d.strides, d.dilates, d.pad_l, d.pad_r) != dnnl_success ||
        A.dnnl_primitive_desc_create(&pd.pd, &cd, attr.attr, A.engine, fwd.pd) != dnnl_success)
      return nullptr;
    p->args = {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC};
    p->user_md = {d.y, d.w, d.x};
    queries = {dnnl_query_diff_dst_md, dnnl_query_weights_md, dnnl_query_diff_src_md};
  } else {
    if (!forward_pd(d, false, any, nullptr, fwd)) return nullptr;
    if (A.dnnl_dilated_convolution_backward_weights_desc_init(
            &cd, conv_algorithm(), any ? &d.x_any : &d.x, any ? &d.w_any : &d.w, nullptr,
            any ? &d.y_any : &d.y, d.strides, d.dilates, d.pad_l, d.pad_r) != dnnl_success ||
        A.dnnl_primitive_desc_create(&pd.pd, &cd, attr.attr, A.engine, fwd.pd) != dnnl_success)
      return nullptr;
    p->args = {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS};
    p->user_md = {d.x, d.y, d.w};
    queries = {dnnl_query_src_md, dnnl_query_diff_dst_md, dnnl_query_diff_weights_md};
  }
  for (int i = 0; i < 3; ++i) {
    const dnnl_memory_desc_t* md = A.dnnl_primitive_desc_query_md(pd.pd, queries[i], 0);
    if (!md) return nullptr;
    p->prim_md[i] = *md;
  }
  if (const dnnl_memory_desc_t* md = A.dnnl_primitive_desc_query_md(pd.pd, dnnl_query_scratchpad_md, 0)) {
    p->scratch_md = *md;
    p->scratch_bytes = A.dnnl_memory_desc_get_size(md);
  }
  if (!make_reorder(p->user_md[0], p->prim_md[0], &p->reorder[0]) ||
      !make_reorder(p->user_md[1], p->prim_md[1], &p->reorder[1]) ||
      !make_reorder(p->prim_md[2], p->user_md[2], &p->reorder[2]))
    return nullptr;
  if (A.dnnl_primitive_create(&p->conv, pd.pd) != dnnl_success) return nullptr;
  ++g_primitives_created;
  return p;
}

// ---- the cache ----------------------------------------------------------------------

constexpr size_t kCacheSize = 256;  // a ResNet-50 has ~53 convolutions x 3 directions

using Key = std::array<int64_t, 20>;

Key make_key(const Conv2dShape& s, ConvDirection dir, bool has_bias) {
  int threads = omp_in_parallel() ? 1 : omp_get_max_threads();  // oneDNN runs on OpenMP's threads
  return {s.batch, s.in_channels, s.height, s.width, s.out_channels, s.kh, s.kw, s.sh, s.sw, s.ph, s.pw,
          s.dh, s.dw, s.groups, s.out_h, s.out_w, static_cast<int64_t>(dir), has_bias, threads, 0};
}

class PrimitiveCache {
 public:
  // The cached primitive for the key, built on a miss; nullptr when oneDNN rejects it
  // (remembered, so a rejected shape is not retried on every call).
  std::shared_ptr<Prepared> get(const Conv2dShape& s, ConvDirection dir, bool has_bias) {
    Key key = make_key(s, dir, has_bias);
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = map_.find(key);
      if (it != map_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second);  // most recently used first
        return it->second->second;
      }
    }
    std::shared_ptr<Prepared> p = prepare(s, dir, has_bias);  // outside the lock: jit takes time
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it != map_.end()) return it->second->second;  // another thread built it meanwhile
    lru_.emplace_front(key, p);
    map_[key] = lru_.begin();
    if (lru_.size() > kCacheSize) {
      map_.erase(lru_.back().first);
      lru_.pop_back();
    }
    return p;
  }

 private:
  std::mutex mu_;
  std::list<std::pair<Key, std::shared_ptr<Prepared>>> lru_;
  std::map<Key, std::list<std::pair<Key, std::shared_ptr<Prepared>>>::iterator> map_;
};

PrimitiveCache& cache() {
  static PrimitiveCache* c = new PrimitiveCache();  // never destroyed: primitives may outlive exit order
  return *c;
}

// Memory objects of one call, destroyed at the end of it.
struct Memories {
  std::vector<dnnl_memory_t> all;
  dnnl_memory_t make(const dnnl_memory_desc_t& md, void* data) {
    dnnl_memory_t m = nullptr;
    if (api().dnnl_memory_create(&m, &md, api().engine, data) != dnnl_success) return nullptr;
    all.push_back(m);
    return m;
  }
  ~Memories() {
    for (dnnl_memory_t m : all) api().dnnl_memory_destroy(m);
  }
};

// Scratch bytes for one call (ember's allocator keeps freed blocks for reuse).
void* scratch(std::vector<Tensor>& keep, size_t bytes) {
  keep.push_back(empty(IntList{static_cast<int64_t>(bytes)}, TensorOptions(kUInt8)));
  return keep.back().data_ptr();
}

bool execute(const Conv2dShape& s, ConvDirection dir, const void* in0, const void* in1, const float* bias,
             void* out) {
  const Api& A = api();
  if (!A.ok) return false;
  std::shared_ptr<Prepared> p = cache().get(s, dir, bias != nullptr);
  dnnl_stream_t stream = thread_stream();
  if (!p || !stream) return false;
  Memories mem;
  std::vector<Tensor> keep;
  std::vector<dnnl_exec_arg_t> args;
  const void* inputs[2] = {in0, in1};
  for (int i = 0; i < 2; ++i) {
    dnnl_memory_t user = mem.make(p->user_md[i], const_cast<void*>(inputs[i]));
    if (!user) return false;
    if (!p->reorder[i]) {
      args.push_back({p->args[i], user});
      continue;
    }
    dnnl_memory_t blocked = mem.make(p->prim_md[i], scratch(keep, A.dnnl_memory_desc_get_size(&p->prim_md[i])));
    if (!blocked) return false;
    dnnl_exec_arg_t r[2] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, blocked}};
    if (A.dnnl_primitive_execute(p->reorder[i], stream, 2, r) != dnnl_success) return false;
    args.push_back({p->args[i], blocked});
  }
  dnnl_memory_t user_out = mem.make(p->user_md[2], out);
  dnnl_memory_t prim_out =
      p->reorder[2] ? mem.make(p->prim_md[2], scratch(keep, A.dnnl_memory_desc_get_size(&p->prim_md[2]))) : user_out;
  if (!user_out || !prim_out) return false;
  args.push_back({p->args[2], prim_out});
  if (p->has_bias) {
    dnnl_memory_t b = mem.make(p->bias_md, const_cast<float*>(bias));
    if (!b) return false;
    args.push_back({DNNL_ARG_BIAS, b});
  }
  if (p->scratch_bytes > 0) {
    dnnl_memory_t sp = mem.make(p->scratch_md, scratch(keep, p->scratch_bytes));
    if (!sp) return false;
    args.push_back({DNNL_ARG_SCRATCHPAD, sp});
  }
  if (A.dnnl_primitive_execute(p->conv, stream, static_cast<int>(args.size()), args.data()) != dnnl_success)
    return false;
  if (p->reorder[2]) {
    dnnl_exec_arg_t r[2] = {{DNNL_ARG_FROM, prim_out}, {DNNL_ARG_TO, user_out}};
    if (A.dnnl_primitive_execute(p->reorder[2], stream, 2, r) != dnnl_success) return false;
  }
  return A.dnnl_stream_wait(stream) == dnnl_success;
}

// Where the live taps (trim) start in a weight tensor of the full kernel.
int64_t live_tap_offset(const Conv2dShape& s) {
  const Trimmed t = trim(s);
  return t.first_h * t.full_kw + t.first_w;
}

}  // namespace

bool onednn_available() { return api().ok; }

bool conv2d_forward(const Conv2dShape& s, const float* x, const float* w, const float* bias, float* y) {
  return execute(s, ConvDirection::forward, x, w + live_tap_offset(s), bias, y);
}

bool conv2d_backward_data(const Conv2dShape& s, const float* gy, const float* w, float* gx) {
  return execute(s, ConvDirection::backward_data, gy, w + live_tap_offset(s), nullptr, gx);
}

bool conv2d_backward_weights(const Conv2dShape& s, const float* x, const float* gy, float* gw) {
  const Trimmed t = trim(s);
  if (t.cut() && api().ok) {
    // The cut taps' gradient is zero; the primitive writes only the live ones.
    const int64_t rows = s.out_channels * (s.in_channels / s.groups), plane = t.full_kh * t.full_kw;
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / plane), [&](int64_t r0, int64_t r1) {
      std::memset(gw + r0 * plane, 0, static_cast<size_t>((r1 - r0) * plane) * sizeof(float));
    });
  }
  return execute(s, ConvDirection::backward_weights, x, gy, nullptr, gw + t.first_h * t.full_kw + t.first_w);
}

#else  // no oneDNN 2.x headers at build time: always the im2col path

bool onednn_available() { return false; }
bool conv2d_forward(const Conv2dShape&, const float*, const float*, const float*, float*) { return false; }
bool conv2d_backward_data(const Conv2dShape&, const float*, const float*, float*) { return false; }
bool conv2d_backward_weights(const Conv2dShape&, const float*, const float*, float*) { return false; }

#endif

}  // namespace ember::cpu::onednn
