// reduce_strided: reduces any set of dims of a strided tensor, without copies.
//
// The input is seen as outputs (kept dims) x reduced elements (reduced dims).
// Each list is ordered by stride, largest first (stride-0 dims, from expand,
// outermost), so the innermost dims are the ones closest in memory whatever
// the layout (a transposed or permuted input reads memory in order), then
// size-1 dims are dropped and neighbours merged where their strides allow.
// An Ops with kOrdered (argmax) keeps the reduced dims in logical row-major
// order instead, so a position in the range is the flat index. Then one of two
// loops runs:
//
//   per output  for each output, reduce its range of elements; a contiguous
//               innermost reduced dim goes through Ops::run (vectorizable, with
//               several accumulators), any other stride through Ops::step.
//   rows        when the innermost kept dim is contiguous and the reduced ones
//               are not (sum over dim 0 of [N, M]): accumulate whole rows into a
//               tile of accumulators with Ops::rows, vectorized across outputs.
//
// Threads split the outputs when there are many, else the reduced range, and
// the partial results are combined in order. Long ranges are summed pairwise
// (Cascade), so float sums of 16M elements stay accurate.
//
// An Ops type describes one reduction:
//   using in_t = element type;  using acc_t = accumulator type;
//   acc_t identity() const;
//   acc_t step(acc_t a, in_t v, int64_t i) const;      // element at position i of the range
//   acc_t combine(acc_t a, acc_t b) const;              // b holds later elements than a
// and optionally (the defaults loop over step):
//   acc_t run(acc_t a, const in_t* p, int64_t n, int64_t i0) const;     // n contiguous elements
//   void rows(acc_t* acc, const in_t* row, int64_t n, int64_t i) const; // acc[j] = step(acc[j], row[j], i)
//   static constexpr bool kOrdered = true;              // positions must be logical flat indices
// Nothing in an Ops may throw: it runs inside OpenMP regions.
#pragma once
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <memory>
#include <vector>

#include "cpu/parallel.h"
#include "ember/tensor.h"

namespace ember::cpu {

struct ReduceGeometry {
  DimVector kept_sizes, kept_strides;  // element strides of the input
  DimVector kept_out_strides;          // strides of the (row-major) result
  DimVector red_sizes, red_strides;
  int64_t num_outputs = 1;
  int64_t reduce_size = 1;
};

namespace reduce_impl {

struct GeomDim {
  int64_t size, stride, out_stride;
};

// Orders dims by stride, largest first, stride 0 (broadcast) outermost, ties in
// logical order; then merges neighbours that continue each other.
inline void order_and_merge(SmallVector<GeomDim, 8>& dims, bool sort, DimVector& sizes,
                            DimVector& strides, DimVector* out_strides) {
  auto key = [](const GeomDim& d) { return d.stride == 0 ? INT64_MAX : std::abs(d.stride); };
  if (sort)
    std::stable_sort(dims.begin(), dims.end(), [&](const GeomDim& a, const GeomDim& b) { return key(a) > key(b); });
  for (const GeomDim& d : dims) {
    bool merge = !sizes.empty() && strides.back() == d.stride * d.size &&
                 (!out_strides || out_strides->back() == d.out_stride * d.size);
    if (merge) {
      sizes.back() *= d.size;
      strides.back() = d.stride;
      if (out_strides) out_strides->back() = d.out_stride;
    } else {
      sizes.push_back(d.size);
      strides.push_back(d.stride);
      if (out_strides) out_strides->push_back(d.out_stride);
    }
  }
}

}  // namespace reduce_impl

// dims: sorted, unique, in range. keep_order: reduced dims stay in logical order.
inline ReduceGeometry make_reduce_geometry(const Tensor& in, const DimVector& dims, bool keep_order) {
  ReduceGeometry g;
  SmallVector<reduce_impl::GeomDim, 8> kept, red;
  int64_t out_stride = 1;
  for (int64_t d = in.dim() - 1, k = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    bool reduced = k >= 0 && dims[k] == d;
    if (reduced) --k;
    int64_t size = in.sizes()[d], stride = in.strides()[d];
    (reduced ? g.reduce_size : g.num_outputs) *= size;
    if (size != 1) (reduced ? red : kept).push_back({size, stride, reduced ? 0 : out_stride});
    if (!reduced) out_stride *= size;
  }
  std::reverse(kept.begin(), kept.end());
  std::reverse(red.begin(), red.end());
  reduce_impl::order_and_merge(kept, true, g.kept_sizes, g.kept_strides, &g.kept_out_strides);
  reduce_impl::order_and_merge(red, !keep_order, g.red_sizes, g.red_strides, nullptr);
  return g;
}

// Pairwise combination of a stream of partial results: level k holds the
// combination of 2^k pushed partials (a binary counter), so each partial goes
// through O(log n) combines and the order of elements is kept.
template <typename Ops>
class Cascade {
 public:
  using acc_t = typename Ops::acc_t;
  explicit Cascade(const Ops& ops) : ops_(ops) {}
  void push(acc_t x) {
    int k = 0;
    for (; k < used_ && full_[k]; ++k) {
      x = ops_.combine(level_[k], x);
      full_[k] = false;
    }
    if (k == kLevels) k = kLevels - 1;  // cannot happen below 2^40 pushes
    level_[k] = x;
    full_[k] = true;
    used_ = std::max(used_, k + 1);
  }
  acc_t result() const {
    acc_t r = ops_.identity();
    bool first = true;
    for (int k = used_ - 1; k >= 0; --k) {
      if (!full_[k]) continue;
      r = first ? level_[k] : ops_.combine(r, level_[k]);
      first = false;
    }
    return r;
  }

 private:
  static constexpr int kLevels = 40;
  const Ops& ops_;
  acc_t level_[kLevels];
  bool full_[kLevels] = {};
  int used_ = 0;
};

namespace reduce_impl {

// An array of accumulators (std::vector<bool> has no data()).
template <typename T>
struct Buffer {
  std::unique_ptr<T[]> p;
  explicit Buffer(size_t n = 0) : p(n ? new T[n] : nullptr) {}
  T* data() const { return p.get(); }
  T& operator[](size_t i) const { return p[i]; }
};

template <typename Ops>
concept HasRun = requires(const Ops& o, typename Ops::acc_t a, const typename Ops::in_t* p) {
  { o.run(a, p, int64_t(), int64_t()) };
};
template <typename Ops>
concept HasRows = requires(const Ops& o, typename Ops::acc_t* a, const typename Ops::in_t* p) {
  { o.rows(a, p, int64_t(), int64_t()) };
};

// Elements a partial result absorbs before it joins the cascade.
constexpr int64_t kCascadeBlock = 1024;
// Rows a tile of accumulators absorbs before it joins the cascade.
constexpr int64_t kCascadeRows = 64;

// A position in the reduced dims (row-major) and its offset; next_outer(k)
// steps along dims [0, k).
struct Odometer {
  const DimVector& sizes;
  const DimVector& strides;
  DimVector idx;
  int64_t offset = 0;
  Odometer(const DimVector& sz, const DimVector& st, int64_t flat, int64_t inner)
      : sizes(sz), strides(st), idx(sz.size(), 0) {
    for (int64_t d = static_cast<int64_t>(sz.size()) - 1; d >= 0; --d) {
      int64_t n = d == static_cast<int64_t>(sz.size()) - 1 ? inner : sz[d];
      idx[d] = flat % n;
      flat /= n;
      offset += idx[d] * st[d];
    }
  }
  void next_outer(size_t last) {
    for (int64_t d = static_cast<int64_t>(last) - 1; d >= 0; --d) {
      offset += strides[d];
      if (++idx[d] < sizes[d]) return;
      offset -= idx[d] * strides[d];
      idx[d] = 0;
    }
  }
};

template <typename Ops>
class Reducer {
 public:
  using in_t = typename Ops::in_t;
  using acc_t = typename Ops::acc_t;

  Reducer(const ReduceGeometry& g, const Ops& ops) : g_(g), ops_(ops) {}

  // Where the it-th output (in the geometry's order of kept dims) reads its
  // first element, and its index in the row-major result.
  void locate(int64_t it, int64_t& in_offset, int64_t& out_index) const {
    in_offset = out_index = 0;
    for (int64_t d = static_cast<int64_t>(g_.kept_sizes.size()) - 1; d >= 0; --d) {
      int64_t i = it % g_.kept_sizes[d];
      in_offset += i * g_.kept_strides[d];
      out_index += i * g_.kept_out_strides[d];
      it /= g_.kept_sizes[d];
    }
  }

  // Walks outputs it0, it0 + 1, ... without a division per output.
  struct Cursor {
    const ReduceGeometry& g;
    DimVector idx;
    int64_t in_offset = 0, out_index = 0;
    Cursor(const Reducer& r, int64_t it0) : g(r.g_), idx(r.g_.kept_sizes.size(), 0) {
      r.locate(it0, in_offset, out_index);
      for (int64_t d = static_cast<int64_t>(idx.size()) - 1; d >= 0; --d) {
        idx[d] = it0 % g.kept_sizes[d];
        it0 /= g.kept_sizes[d];
      }
    }
    void next() {
      for (int64_t d = static_cast<int64_t>(idx.size()) - 1; d >= 0; --d) {
        in_offset += g.kept_strides[d];
        out_index += g.kept_out_strides[d];
        if (++idx[d] < g.kept_sizes[d]) return;
        in_offset -= idx[d] * g.kept_strides[d];
        out_index -= idx[d] * g.kept_out_strides[d];
        idx[d] = 0;
      }
    }
  };

  // Reduces positions [r0, r1) of the range that starts at p.
  acc_t reduce_range(const in_t* p, int64_t r0, int64_t r1) const {
    const size_t nd = g_.red_sizes.size();
    if (nd == 0) return r0 < r1 ? ops_.step(ops_.identity(), p[0], 0) : ops_.identity();
    const int64_t inner = g_.red_sizes[nd - 1], stride = g_.red_strides[nd - 1];
    if (nd == 1 && stride == 1) return run(ops_.identity(), p + r0, r1 - r0, r0);  // one run
    Odometer od(g_.red_sizes, g_.red_strides, r0, inner);
    int64_t j = od.idx[nd - 1];
    od.offset -= j * stride;
    acc_t acc = ops_.identity();
    if (r1 - r0 <= kCascadeBlock) return reduce_runs(p, od, j, r0, r1, acc);
    Cascade<Ops> cascade(ops_);
    for (int64_t r = r0; r < r1;) {
      int64_t r_end = std::min(r1, r + kCascadeBlock);
      acc = reduce_runs(p, od, j, r, r_end, ops_.identity());
      cascade.push(acc);
      r = r_end;
    }
    return cascade.result();
  }

  // Reduces positions [r0, r1) of a tile of w outputs whose first element is at
  // p (the innermost kept dim is contiguous) into acc[0..w).
  void reduce_rows(const in_t* p, int64_t w, int64_t r0, int64_t r1, acc_t* acc) const {
    const size_t nd = g_.red_sizes.size();
    Buffer<acc_t> cur(w);
    std::fill(cur.data(), cur.data() + w, ops_.identity());
    std::vector<Buffer<acc_t>> levels;  // levels[k]: 2^k blocks of rows, if full[k]
    std::vector<char> full;
    Odometer od(g_.red_sizes, g_.red_strides, r0, g_.red_sizes[nd - 1]);
    int64_t count = 0;
    for (int64_t r = r0; r < r1; ++r) {
      rows(cur.data(), p + od.offset, w, r);
      od.next_outer(nd);
      if (++count == kCascadeRows && r + 1 < r1) {
        push_rows(levels, full, cur, w);
        count = 0;
      }
    }
    // Fold: levels hold earlier rows than cur, higher levels earlier than lower.
    bool any = false;
    for (int64_t k = static_cast<int64_t>(levels.size()) - 1; k >= 0; --k) {
      if (!full[k]) continue;
      if (!any) std::copy(levels[k].data(), levels[k].data() + w, acc);
      else combine_into(acc, levels[k].data(), w);
      any = true;
    }
    if (!any) std::copy(cur.data(), cur.data() + w, acc);
    else if (count > 0) combine_into(acc, cur.data(), w);
  }

 private:
  // Runs along the innermost reduced dim, from inner index j at od.
  acc_t reduce_runs(const in_t* p, Odometer& od, int64_t& j, int64_t r, int64_t r1, acc_t acc) const {
    const size_t nd = g_.red_sizes.size();
    const int64_t inner = g_.red_sizes[nd - 1], stride = g_.red_strides[nd - 1];
    while (r < r1) {
      int64_t n = std::min(inner - j, r1 - r);
      const in_t* q = p + od.offset + j * stride;
      if (stride == 1) acc = run(acc, q, n, r);
      else
        for (int64_t i = 0; i < n; ++i) acc = ops_.step(acc, q[i * stride], r + i);
      r += n;
      j += n;
      if (j == inner) {
        j = 0;
        od.next_outer(nd - 1);
      }
    }
    return acc;
  }

  acc_t run(acc_t acc, const in_t* q, int64_t n, int64_t i0) const {
    if constexpr (HasRun<Ops>) {
      return ops_.run(acc, q, n, i0);
    } else {
      for (int64_t i = 0; i < n; ++i) acc = ops_.step(acc, q[i], i0 + i);
      return acc;
    }
  }

  void rows(acc_t* acc, const in_t* row, int64_t w, int64_t i) const {
    if constexpr (HasRows<Ops>) {
      ops_.rows(acc, row, w, i);
    } else {
      for (int64_t j = 0; j < w; ++j) acc[j] = ops_.step(acc[j], row[j], i);
    }
  }

  void combine_into(acc_t* a, const acc_t* b, int64_t w) const {
    for (int64_t j = 0; j < w; ++j) a[j] = ops_.combine(a[j], b[j]);
  }

  void push_rows(std::vector<Buffer<acc_t>>& levels, std::vector<char>& full, Buffer<acc_t>& cur,
                 int64_t w) const {
    size_t k = 0;
    for (; k < levels.size() && full[k]; ++k) {
      combine_into(levels[k].data(), cur.data(), w);
      std::swap(levels[k], cur);
      full[k] = false;
    }
    if (k == levels.size()) {
      levels.emplace_back(w);
      full.push_back(false);
    }
    std::swap(levels[k], cur);
    full[k] = true;
    std::fill(cur.data(), cur.data() + w, ops_.identity());
  }

  const ReduceGeometry& g_;
  const Ops& ops_;
};

inline int reduce_threads(int64_t work) {
  if (work < kGrainSize) return 1;
  return static_cast<int>(std::min<int64_t>(max_threads(), work / kGrainSize));
}

// Runs f(t) for t in [0, n) on up to n threads.
template <typename F>
void run_chunks(int n, const F& f) {
  if (n <= 1) {
    if (n == 1) f(0);
    return;
  }
  run_parallel(n, n, [&](int64_t t, int) { f(static_cast<int>(t)); });
}

}  // namespace reduce_impl

// Reduces `dims` (sorted, unique) of `in` with ops and calls write(o, acc) for
// each output o (its index in the row-major result). Empty reductions give
// ops.identity().
template <typename Ops, typename Write>
void reduce_strided(const Tensor& in, const DimVector& dims, const Ops& ops, const Write& write) {
  using in_t = typename Ops::in_t;
  using acc_t = typename Ops::acc_t;
  using namespace reduce_impl;
  constexpr bool ordered = requires { requires Ops::kOrdered; };
  const ReduceGeometry g = make_reduce_geometry(in, dims, ordered);
  const int64_t O = g.num_outputs, R = g.reduce_size;
  if (O == 0) return;
  if (R == 0) {
    for (int64_t o = 0; o < O; ++o) write(o, ops.identity());
    return;
  }
  const in_t* base = static_cast<const in_t*>(in.data_ptr());
  Reducer<Ops> red(g, ops);
  const int nt = reduce_threads(O * R);
  const size_t nk = g.kept_sizes.size(), nr = g.red_sizes.size();
  const bool rows_layout = nk > 0 && nr > 0 && g.kept_strides[nk - 1] == 1 &&
                           g.red_strides[nr - 1] != 1 && g.kept_sizes[nk - 1] >= 4;
  // Partial results of the it-th output from nt threads, combined in order.
  auto finish_parts = [&](const Buffer<acc_t>& part) {
    for (int64_t it = 0; it < O; ++it) {
      acc_t a = part[it];
      for (int t = 1; t < nt; ++t) a = ops.combine(a, part[t * O + it]);
      int64_t in_offset, o;
      red.locate(it, in_offset, o);
      write(o, a);
    }
  };

  if (rows_layout) {
    // Tiles of w outputs along the contiguous kept dim; accumulators stay in L1.
    const int64_t M = g.kept_sizes[nk - 1], outer = O / M, out_step = g.kept_out_strides[nk - 1];
    // Too few tiles for the threads: narrower tiles if they stay wide enough
    // to amortize each row's overhead, else the threads split the rows.
    int64_t w = std::min<int64_t>(M, 2048);
    if (outer * ((M + w - 1) / w) < nt && M / nt >= 512) w = (M + nt - 1) / nt;
    const int64_t tiles_per_row = (M + w - 1) / w, tiles = outer * tiles_per_row;
    auto tile_at = [&](int64_t t, int64_t& it0, int64_t& width) {
      int64_t ob = t / tiles_per_row, j0 = (t % tiles_per_row) * w;
      it0 = ob * M + j0;
      width = std::min(w, M - j0);
    };
    if (tiles >= nt) {
      run_chunks(nt, [&](int t) {
        Buffer<acc_t> acc(w);
        for (int64_t tile = tiles * t / nt; tile < tiles * (t + 1) / nt; ++tile) {
          int64_t it0, width, in_offset, o0;
          tile_at(tile, it0, width);
          red.locate(it0, in_offset, o0);
          red.reduce_rows(base + in_offset, width, 0, R, acc.data());
          for (int64_t j = 0; j < width; ++j) write(o0 + j * out_step, acc[j]);
        }
      });
    } else {  // few outputs: split the rows, then combine the partial tiles in order
      Buffer<acc_t> part(static_cast<size_t>(nt) * O);
      run_chunks(nt, [&](int t) {
        int64_t r0 = R * t / nt, r1 = R * (t + 1) / nt;
        for (int64_t tile = 0; tile < tiles; ++tile) {
          int64_t it0, width, in_offset, o0;
          tile_at(tile, it0, width);
          red.locate(it0, in_offset, o0);
          red.reduce_rows(base + in_offset, width, r0, r1, &part[t * O + it0]);
        }
      });
      finish_parts(part);
    }
    return;
  }

  if (O >= 4 * nt || nt == 1) {
    run_chunks(nt, [&](int t) {
      const int64_t it0 = O * t / nt, it1 = O * (t + 1) / nt;
      typename Reducer<Ops>::Cursor at(red, it0);
      for (int64_t it = it0; it < it1; ++it, at.next())
        write(at.out_index, red.reduce_range(base + at.in_offset, 0, R));
    });
    return;
  }
  // Few outputs, long ranges: each thread reduces a slice of every range.
  Buffer<acc_t> part(static_cast<size_t>(nt) * O);
  run_chunks(nt, [&](int t) {
    int64_t r0 = R * t / nt, r1 = R * (t + 1) / nt;
    for (int64_t it = 0; it < O; ++it) {
      int64_t in_offset, o;
      red.locate(it, in_offset, o);
      part[t * O + it] = red.reduce_range(base + in_offset, r0, r1);
    }
  });
  finish_parts(part);
}

}  // namespace ember::cpu
