// Random mutations of valid elementwise/linalg/nn nodes (extreme ints and
// floats, wrong attribute kinds, wrong list lengths, other dtypes, layouts and
// shapes, left-out inputs, in-place forms): each node either runs or gives
// ember::Error (std::bad_alloc for sizes past the memory), never a crash or a
// hang. The same seed every run; the model-file fuzz harness goes further.
#include <catch2/catch.hpp>

#include <cmath>
#include <iterator>
#include <limits>
#include <random>

#include "ember/ember.h"
#include "one_node_graph.h"
#include "dispatch/op_ids/elementwise.h"
#include "dispatch/op_ids/linalg.h"
#include "dispatch/op_ids/nn.h"

using namespace ember;
using namespace ember::jit;

namespace {

// A valid node: op, inputs, attrs and its number of outputs.
struct NodeTemplate {
  OpId op;
  std::vector<Tensor> inputs;
  std::vector<Attr> attrs;
  size_t n_outputs;
};

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  size_t below(size_t n) { return static_cast<size_t>(rng_() % n); }

  // Ints and floats that break size arithmetic, casts and ranges. (No sizes
  // between 65 and 2^40: those are valid, only large, and a few of them
  // allocate more than a test machine has; 2^40 and up is refused outright.)
  int64_t extreme_int() {
    constexpr int64_t big = int64_t(1) << 62;
    static const int64_t v[] = {0, 1, -1, 2, 3, 5, 7, 64, 65, -100, int64_t(1) << 40, big, -big,
                                std::numeric_limits<int64_t>::max(),
                                std::numeric_limits<int64_t>::min()};
    return v[below(std::size(v))];
  }
  double extreme_real() {
    static const double v[] = {0, 1, -1, 0.5, 2, 1e-30, 1e10, 1e308, -1e308, NAN, INFINITY, -INFINITY};
    return v[below(std::size(v))];
  }

  // Another value for an attribute: None, a value of another kind, or an extreme
  // value of its own kind.
  Attr attr(const Attr& a) {
    switch (below(8)) {
      case 0: return Attr();
      case 1: return Attr(extreme_int());
      case 2: return Attr(extreme_real());
      default: break;
    }
    const auto& v = a.value();
    if (std::holds_alternative<int64_t>(v)) return Attr(extreme_int());
    if (std::holds_alternative<double>(v)) return Attr(extreme_real());
    if (std::holds_alternative<Scalar>(v))
      return below(2) ? Attr(Scalar(extreme_real())) : Attr(Scalar(extreme_int()));
    if (std::holds_alternative<bool>(v)) return Attr(!a.to_bool());
    if (std::holds_alternative<std::string>(v)) {
      static const char* const s[] = {"", "none", "tanh", "floor", "trunc", "constant", "reflect",
                                      "replicate", "circular", "linear", "nearest", "x"};
      return Attr(std::string(s[below(std::size(s))]));
    }
    if (std::holds_alternative<DimVector>(v)) {
      DimVector d = a.to_ints();
      d.resize(below(4) == 0 ? below(5) : d.size(), 1);
      for (int64_t& x : d)
        if (below(2)) x = extreme_int();
      return Attr(d);
    }
    return a;
  }

  // Another tensor in the input's place: left out, another dtype, layout or shape.
  Tensor tensor(const Tensor& t) {
    switch (below(9)) {
      case 0: return Tensor();
      case 1: return t.dim() ? t.transpose(0, -1) : t;
      case 2: return t.to(kInt64);
      case 3: return t.to(kBool);
      case 4: return t.to(kFloat16);
      case 5: return randn({});
      case 6: return randn({0, 3});
      case 7: return t.dim() ? t.narrow(0, 0, std::max<int64_t>(0, t.size(0) - 1)) : t;
      default: return t.to(kFloat64);
    }
  }

 private:
  std::mt19937_64 rng_;
};

Attr ints(IntList v) { return Attr(v); }

std::vector<NodeTemplate> valid_nodes() {
  Tensor x = randn({2, 3, 5, 5}), w = randn({4, 3, 3, 3}), b = randn({4}), v = randn({3});
  Tensor row = randn({5});  // broadcasts against x
  Tensor m = randn({3, 4}), wt = randn({3, 2, 2, 2}), probs = rand({2, 3, 5, 5});
  Tensor idx = from_vector<int64_t>({1, 0, 2}, {3}), cls = from_vector<int64_t>({0, 1, 2, 1}, {4});
  const Attr one(Scalar(1)), mean(int64_t(1));
  return {
      {opid::round, {x}, {Attr(int64_t(1))}, 1},
      {opid::gelu, {x}, {Attr("tanh")}, 1},
      {opid::softplus, {x}, {one, Attr(Scalar(20))}, 1},
      {opid::leaky_relu, {x}, {Attr(Scalar(0.1))}, 1},
      {opid::nan_to_num, {x}, {Attr(0.0), Attr(), Attr()}, 1},
      {opid::clamp, {x, row, Tensor()}, {}, 1},
      {opid::add, {x, row}, {one}, 1},
      {opid::div, {x, row}, {Attr("floor")}, 1},
      {opid::pow, {x, row}, {}, 1},
      {opid::bitwise_left_shift, {idx, idx}, {}, 1},
      {opid::where, {x.gt(0), x, row}, {}, 1},
      {opid::lerp, {x, x, row}, {}, 1},
      {opid::addmm, {randn({4}), m.t(), m}, {one, one}, 1},
      {opid::mm, {m, m.t()}, {}, 1},
      {opid::bmm, {x.select(0, 0), x.select(0, 0)}, {}, 1},
      {opid::mv, {m, randn({4})}, {}, 1},
      {opid::dot, {v, v}, {}, 1},
      {opid::conv2d, {x, w, b}, {ints({1, 1}), ints({1, 1}), ints({1, 1}), Attr(int64_t(1))}, 1},
      {opid::conv_transpose2d, {x, wt, Tensor()},
       {ints({2, 2}), ints({0, 0}), ints({1, 1}), Attr(int64_t(1)), ints({1, 1})}, 1},
      {opid::max_pool2d, {x}, {ints({2, 2}), ints({2, 2}), ints({0, 0}), ints({1, 1}), Attr(false)}, 1},
      {opid::max_pool2d_with_indices, {x},
       {ints({3, 3}), ints({1, 1}), ints({1, 1}), ints({1, 1}), Attr(true)}, 2},
      {opid::avg_pool2d, {x}, {ints({2, 2}), ints({2, 2}), ints({1, 1}), Attr(false), Attr(true), Attr()}, 1},
      {opid::adaptive_avg_pool2d, {x}, {ints({2, 3})}, 1},
      {opid::batch_norm, {x, v, v.abs(), v, v}, {Attr(true), Attr(0.1), Attr(1e-5)}, 3},
      {opid::layer_norm, {x, randn({5}), Tensor()}, {ints({5}), Attr(1e-5)}, 3},
      {opid::group_norm, {x, v, v}, {Attr(int64_t(3)), Attr(1e-5)}, 3},
      {opid::dropout, {x}, {Attr(0.5)}, 2},
      {opid::embedding, {m, idx}, {Attr()}, 1},
      {opid::one_hot, {idx}, {Attr(int64_t(4))}, 1},
      {opid::pad, {x}, {ints({1, 1, 2, 0}), Attr("reflect"), Attr(Scalar(0))}, 1},
      {opid::interpolate, {x}, {ints({7, 7}), Attr("linear"), Attr(false), Attr(1.5), Attr(1.5)}, 1},
      {opid::interpolate, {x}, {ints({7, 7}), Attr("nearest"), Attr(false), Attr(), Attr()}, 1},
      {opid::cross_entropy, {m.t(), cls, v}, {Attr(int64_t(-100)), mean, Attr(0.1)}, 1},
      {opid::nll_loss, {m.t(), cls, Tensor()}, {Attr(int64_t(1)), Attr(int64_t(2))}, 1},
      {opid::mse_loss, {x, probs}, {mean}, 1},
      {opid::smooth_l1_loss, {x, probs}, {mean, Attr(1.0)}, 1},
      {opid::huber_loss, {x, probs}, {Attr(int64_t(0)), Attr(1.0)}, 1},
      {opid::binary_cross_entropy, {probs, probs, Tensor()}, {mean}, 1},
      {opid::binary_cross_entropy_with_logits, {x, probs, Tensor(), v.view({3, 1, 1})}, {mean}, 1},
  };
}

}  // namespace

TEST_CASE("mutated elementwise, linalg and nn nodes give ember::Error or a result", "[jit]") {
  manual_seed(0);
  const std::vector<NodeTemplate> nodes = valid_nodes();
  for (const NodeTemplate& t : nodes) {  // the unmutated nodes run
    INFO(op_name(t.op));
    CHECK_NOTHROW(test::OneNodeGraph(t.op, t.inputs, t.attrs, t.n_outputs).run());
  }
  Mutator mutate(20261121);
  int ran = 0, refused = 0;
  for (int iteration = 0; iteration < 4000; ++iteration) {
    NodeTemplate t = nodes[mutate.below(nodes.size())];
    for (size_t k = 0, n = 1 + mutate.below(3); k < n; ++k) {
      if (!t.attrs.empty() && mutate.below(3)) {
        Attr& a = t.attrs[mutate.below(t.attrs.size())];
        a = mutate.attr(a);
      } else {
        Tensor& in = t.inputs[mutate.below(t.inputs.size())];
        if (in.defined()) in = mutate.tensor(in);
      }
    }
    // One node in ten is the in-place form (on a copy: the templates stay valid).
    const bool in_place = mutate.below(10) == 0 && t.inputs[0].defined();
    if (in_place) t.inputs[0] = t.inputs[0].clone();
    try {
      test::OneNodeGraph g(t.op, t.inputs, t.attrs, t.n_outputs, in_place);
      const size_t n = g.run().size();
      CHECK(n == t.n_outputs);
      ++ran;
    } catch (const Error&) {
      ++refused;
    } catch (const std::bad_alloc&) {
      ++refused;
    }
  }
  // Both occur: the mutations are neither all harmless nor all fatal.
  CHECK(ran > 100);
  CHECK(refused > 100);
}
