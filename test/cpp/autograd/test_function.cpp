// Custom autograd Functions from C++ (ember/autograd_function.h).
#include <catch2/catch.hpp>

#include "ember/ember.h"

using namespace ember;
using autograd::AutogradContext;

namespace {

double at(const Tensor& t, int64_t i) { return t.contiguous().data_ptr<double>()[i]; }

// y = k * x^3, with k kept in saved_data and x saved for backward.
struct Cube : autograd::Function<Cube> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double k) {
    ctx->save_for_backward({x});
    ctx->saved_data["k"] = k;
    return x * x * x * k;
  }
  static TensorList backward(AutogradContext* ctx, TensorList grads) {
    Tensor x = ctx->get_saved_variables()[0];
    double k = ctx->saved_data["k"].to_double();
    return {grads[0] * x * x * (3 * k), Tensor()};
  }
};

// y = exp(x), saving its own output.
struct Exp : autograd::Function<Exp> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    Tensor y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static TensorList backward(AutogradContext* ctx, TensorList grads) {
    return {grads[0] * ctx->get_saved_variables()[0]};
  }
};

// (2x, sign(x)): the second output is marked non-differentiable.
struct DoubleAndSign : autograd::Function<DoubleAndSign> {
  static TensorList forward(AutogradContext* ctx, const Tensor& x) {
    Tensor sign = x.sign();
    ctx->mark_non_differentiable({sign});
    ctx->set_materialize_grads(false);
    return {x * 2, sign};
  }
  static TensorList backward(AutogradContext* ctx, TensorList grads) {
    ctx->saved_data["second_grad_defined"] = grads[1].defined();
    return {grads[0] * 2};
  }
};

// Multiplies its input by 3 in place.
struct TripleInPlace : autograd::Function<TripleInPlace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(3);
    ctx->mark_dirty({x});
    return x;
  }
  static TensorList backward(AutogradContext*, TensorList grads) { return {grads[0] * 3}; }
};

// The sum of a list of tensors times a scale: one gradient per tensor of the list.
struct ScaledSum : autograd::Function<ScaledSum> {
  static Tensor forward(AutogradContext* ctx, const TensorList& xs, double scale) {
    ctx->saved_data["scale"] = scale;
    Tensor total = xs[0] * scale;
    for (size_t i = 1; i < xs.size(); ++i) total = total + xs[i] * scale;
    return total;
  }
  static TensorList backward(AutogradContext* ctx, TensorList grads) {
    double s = ctx->saved_data["scale"].to_double();
    auto grad_if_needed = [&](size_t i) { return ctx->needs_input_grad(i) ? grads[0] * s : Tensor(); };
    CHECK_FALSE(ctx->needs_input_grad(1));
    return {grad_if_needed(0), grad_if_needed(1), Tensor()};
  }
};

struct TooFewGradients : autograd::Function<TooFewGradients> {
  static Tensor forward(AutogradContext*, const Tensor& a, const Tensor& b) { return a * b; }
  static TensorList backward(AutogradContext*, TensorList grads) { return {grads[0]}; }
};

}  // namespace

TEST_CASE("a C++ Function gives first derivatives") {
  Tensor x = tensor({0.5, -1.0, 2.0}, kFloat64).requires_grad_();
  Tensor y = Cube::apply(x, 2.0);
  CHECK(y.grad_fn()->name() == "CubeBackward");
  y.sum().backward();
  for (int i = 0; i < 3; ++i) CHECK(at(x.grad(), i) == Approx(6.0 * at(x, i) * at(x, i)));
}

TEST_CASE("a C++ Function gives second derivatives") {
  Tensor x = tensor({0.5, -1.0, 2.0}, kFloat64).requires_grad_();
  Tensor g = autograd::grad({Cube::apply(x, 2.0).sum()}, {x}, {}, std::nullopt, true)[0];
  Tensor h = autograd::grad({g.sum()}, {x})[0];  // d/dx of 6x^2 = 12x
  for (int i = 0; i < 3; ++i) CHECK(at(h, i) == Approx(12.0 * at(x, i)));

  // Through a saved output: d2/dx2 exp(x) = exp(x).
  Tensor ge = autograd::grad({Exp::apply(x).sum()}, {x}, {}, std::nullopt, true)[0];
  Tensor he = autograd::grad({ge.sum()}, {x})[0];
  for (int i = 0; i < 3; ++i) CHECK(at(he, i) == Approx(std::exp(at(x, i))));
}

TEST_CASE("a C++ Function's saved tensors are checked for in-place changes") {
  Tensor x = tensor({1.0, 2.0}, kFloat64).requires_grad_();
  Tensor a = x * 1;
  Tensor y = Cube::apply(a, 1.0);
  a.mul_(2);
  CHECK_THROWS_WITH(y.sum().backward(), Catch::Contains("modified by an inplace operation") &&
                                            Catch::Contains("CubeBackward"));

  Tensor z = Exp::apply(x);
  z.sum().backward();  // frees the saved output
  CHECK_THROWS_WITH(z.sum().backward(), Catch::Contains("backward through the graph a second time"));
}

TEST_CASE("a C++ Function's non-differentiable outputs get no gradient") {
  Tensor x = tensor({-1.0, 3.0}, kFloat64).requires_grad_();
  TensorList out = DoubleAndSign::apply(x);
  CHECK(out[0].requires_grad());
  CHECK_FALSE(out[1].requires_grad());
  CHECK(out[1].grad_fn() == nullptr);
  (out[0] * out[1]).sum().backward();  // d/dx sum(2x * sign(x)) = 2 sign(x)
  CHECK(at(x.grad(), 0) == Approx(-2.0));
  CHECK(at(x.grad(), 1) == Approx(2.0));
}

TEST_CASE("a C++ Function without an input that requires grad records nothing") {
  Tensor x = tensor({1.0, 2.0}, kFloat64);
  Tensor y = Cube::apply(x, 1.0);
  CHECK_FALSE(y.requires_grad());
  Tensor w = tensor({1.0, 2.0}, kFloat64).requires_grad_();
  NoGradGuard no_grad;
  CHECK_FALSE(Cube::apply(w, 1.0).requires_grad());
}

TEST_CASE("a C++ Function with a TensorList argument gets one gradient per tensor") {
  Tensor a = tensor({1.0, 2.0}, kFloat64).requires_grad_();
  Tensor b = tensor({3.0, 4.0}, kFloat64);
  Tensor y = ScaledSum::apply(TensorList{a, b}, 0.5);
  y.sum().backward();
  CHECK(at(a.grad(), 0) == Approx(0.5));
  CHECK_FALSE(b.grad().defined());
  CHECK(y.grad_fn()->name() == "ScaledSumBackward");
}

TEST_CASE("a C++ Function must return one gradient per argument") {
  Tensor a = tensor({1.0}, kFloat64).requires_grad_();
  Tensor y = TooFewGradients::apply(a, a);
  CHECK_THROWS_WITH(y.sum().backward(), Catch::Contains("returned an incorrect number of gradients "
                                                        "(expected 2, got 1)"));
}

TEST_CASE("a C++ Function may change an input in place (mark_dirty)") {
  Tensor leaf = tensor({1.0}, kFloat64).requires_grad_();
  CHECK_THROWS_WITH(TripleInPlace::apply(leaf), Catch::Contains("leaf Variable that requires grad"));

  Tensor x = tensor({1.0, 2.0, 3.0}, kFloat64).requires_grad_();
  Tensor a = x * 1;
  Tensor y = TripleInPlace::apply(a);
  CHECK(y.is_same(a));
  CHECK(a.grad_fn()->name() == "TripleInPlaceBackward");

  // Through a view: the base's history becomes CopySlices.
  Tensor b = x * 1;
  Tensor v = b.narrow(0, 1, 2);
  TripleInPlace::apply(v);
  CHECK(b.grad_fn()->name() == "CopySlices");
  (a.sum() + (b * b).sum()).backward();
  // d/dx [3x summed] + d/dx [x0^2 + (3x1)^2 + (3x2)^2]
  CHECK(at(x.grad(), 0) == Approx(3 + 2 * 1.0));
  CHECK(at(x.grad(), 1) == Approx(3 + 18 * 2.0));
  CHECK(at(x.grad(), 2) == Approx(3 + 18 * 3.0));
}

TEST_CASE("saved_data keeps typed values") {
  autograd::SavedValue v = IntList{1, 2};
  CHECK(v.to_ints() == IntList{1, 2});
  CHECK(autograd::SavedValue(3).to_double() == 3.0);
  CHECK_THROWS_AS(v.to_tensor(), TypeError);
  CHECK_THROWS_WITH(v.to_double(), Catch::Contains("expected a double but the value is a int list"));
}
