// The cuBLAS kernels of mm, bmm, addmm, mv, dot (lib/cuda/blas/) writing into preset
// outputs of every layout (row-major, column-major, strided beyond any leading
// dimension): what an out= call or a traced graph hands a kernel. Compared with the
// CPU kernels on the same preset layouts. Without a GPU: "skipped: ...".
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/ember.h"

using namespace ember;

namespace {

#define REQUIRE_GPU()                                                             \
  do {                                                                            \
    if (!cuda::is_available()) {                                                  \
      WARN("skipped: " << (cuda::is_built() ? "no CUDA GPU is available"          \
                                            : "ember was built without CUDA"));   \
      return;                                                                     \
    }                                                                             \
  } while (0)

const Device kCuda(DeviceType::CUDA, 0);

Tensor values(const IntList& sizes, int seed, DType dtype = kFloat32) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  // Small integers and halves: exact in every float dtype, sums of few of them too.
  Tensor v = remainder(arange(n, TensorOptions(kInt64)) * (2 * seed + 1) + seed, 7) - 3;
  return (v.to(kFloat64) * 0.5).to(dtype).view(sizes);
}

// An uninitialized (NaN-filled) output of `sizes` on `device` in one of three layouts.
enum class Layout { kRowMajor, kColumnMajor, kEveryOther };
Tensor preset(const IntList& sizes, DType dtype, Device device, Layout layout) {
  TensorOptions o = TensorOptions(dtype).device(device);
  if (layout == Layout::kRowMajor) return full(sizes, NAN, o);
  if (layout == Layout::kColumnMajor) {
    IntList reversed(sizes.rbegin(), sizes.rend());
    Tensor t = full(reversed, NAN, o);
    return sizes.size() == 3 ? t.permute({2, 1, 0}) : t.t();
  }
  IntList wide(sizes.begin(), sizes.end());
  wide.back() *= 2;
  return full(wide, NAN, o).slice(static_cast<int64_t>(wide.size()) - 1, 0, std::nullopt, 2);
}

// Runs op with its output preset to `out`; returns the output the call produced.
Tensor run_into(OpId op, std::initializer_list<Tensor> inputs, std::initializer_list<Attr> attrs,
                const Tensor& out) {
  OpCall call(op, inputs, attrs);
  call.outputs.push_back(out);
  dispatch(call);
  REQUIRE(call.outputs[0].is_same(out));
  return out;
}

void check_close(const Tensor& cuda_out, const Tensor& cpu_out, double tol) {
  REQUIRE(cuda_out.sizes() == cpu_out.sizes());
  Tensor a = cuda_out.cpu().to(kFloat64).contiguous(), e = cpu_out.to(kFloat64).contiguous();
  for (int64_t i = 0; i < a.numel(); ++i) {
    INFO("element " << i);
    CHECK(a.data_ptr<double>()[i] == Approx(e.data_ptr<double>()[i]).margin(tol));
  }
}

}  // namespace

TEST_CASE("cuBLAS products write preset outputs of any layout", "[cuda][blas]") {
  REQUIRE_GPU();
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    for (Layout layout : {Layout::kRowMajor, Layout::kColumnMajor, Layout::kEveryOther}) {
      INFO("dtype " << dtype_name(dtype) << ", layout " << static_cast<int>(layout));
      double tol = dtype == kFloat32 || dtype == kFloat64 ? 1e-9 : 0.0;  // exact values
      Tensor a = values({5, 6}, 1, dtype), b = values({6, 4}, 2, dtype), bias = values({4}, 3, dtype);
      Tensor ga = a.cuda(), gb = b.cuda(), gbias = bias.cuda();
      check_close(run_into(opid::mm, {ga, gb}, {}, preset({5, 4}, dtype, kCuda, layout)),
                  run_into(opid::mm, {a, b}, {}, preset({5, 4}, dtype, kCPU, layout)), tol);
      check_close(run_into(opid::mm, {gb.t(), ga.t()}, {}, preset({4, 5}, dtype, kCuda, layout)),
                  mm(b.t(), a.t()), tol);
      for (double beta : {0.0, 1.0, 2.0}) {
        INFO("beta " << beta);
        Tensor cpu = run_into(opid::addmm, {bias, a, b}, {Attr(Scalar(beta)), Attr(Scalar(0.5))},
                              preset({5, 4}, dtype, kCPU, layout));
        Tensor gpu = run_into(opid::addmm, {gbias, ga, gb}, {Attr(Scalar(beta)), Attr(Scalar(0.5))},
                              preset({5, 4}, dtype, kCuda, layout));
        check_close(gpu, cpu, tol);
      }
      Tensor x = values({3, 5, 6}, 4, dtype), y = values({3, 6, 2}, 5, dtype);
      check_close(run_into(opid::bmm, {x.cuda(), y.cuda()}, {}, preset({3, 5, 2}, dtype, kCuda, layout)),
                  bmm(x, y), tol);
      Tensor v = values({6}, 6, dtype);
      Tensor mv_out = layout == Layout::kEveryOther ? preset({5}, dtype, kCuda, layout)
                                                    : preset({5}, dtype, kCuda, Layout::kRowMajor);
      check_close(run_into(opid::mv, {ga, v.cuda()}, {}, mv_out), mv(a, v), tol);
      check_close(run_into(opid::dot, {v.cuda(), v.cuda()}, {}, full({}, NAN, TensorOptions(dtype).device(kCuda))),
                  dot(v, v), tol);
    }
  }
}

TEST_CASE("cuBLAS errors and unsupported dtypes name the op", "[cuda][blas]") {
  REQUIRE_GPU();
  Tensor a = ones({2, 2}, TensorOptions(kInt64).device(kCuda));
  CHECK_THROWS_WITH(mm(a, a), Catch::Contains("mm: not implemented for 'Long' on CUDA"));
  CHECK_THROWS_AS(mm(a, a), NotImplementedError);
  CHECK_THROWS_AS(dot(a.select(0, 0), a.select(0, 0)), NotImplementedError);
}

TEST_CASE("TensorFloat-32 changes float32 products only when allowed", "[cuda][blas]") {
  REQUIRE_GPU();
  bool saved = cuda::matmul_allow_tf32();
  Tensor a = randn({256, 512}, TensorOptions(kFloat64)), b = randn({512, 256}, TensorOptions(kFloat64));
  Tensor reference = mm(a, b);
  auto error = [&] {
    Tensor c = mm(a.to(kFloat32).cuda(), b.to(kFloat32).cuda()).cpu().to(kFloat64);
    return (c - reference).abs().max().item<double>();
  };
  cuda::set_matmul_allow_tf32(false);
  double full_error = error();
  cuda::set_matmul_allow_tf32(true);
  double tf32_error = error();
  cuda::set_matmul_allow_tf32(saved);
  CHECK(full_error < 1e-3);
  CHECK(tf32_error < 0.5);     // |entries| ~ sqrt(512) ~ 23, tf32 relative error ~ 1e-3
  CHECK(tf32_error > full_error);
}
