// Division kernels on CUDA: div (true, "trunc" and "floor" rounding), remainder
// (the sign of the divisor, as Python's %) and fmod (the sign of the dividend)
// (cpu/binary.cpp). An integer division by zero is reported through
// cuda/device_error.h and raised as the CPU's ZeroDivisionError at the next
// synchronization; the element it hit is written as 0.
#include <cmath>

#include "kernels/elementwise_math.h"
#include "kernels/int_math.h"
#include "cuda/device_error.h"
#include "cuda/elementwise/helpers.cuh"
#include "dispatch/args/elementwise.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember::cuda {
namespace {

struct TrueDiv {
  template <typename T> __device__ T operator()(T x, T y) const { return x / y; }
};

// The rounding division and the two remainders. One kernel per dtype serves the
// variants of each: the variant is a launch argument, the same for every thread.
enum class Rounding { Trunc, Floor };
enum class Sign { Dividend, Divisor };  // fmod, remainder

// A float division or remainder; the integer one checks for zero.
struct DivRounded {
  Rounding mode;
  DeviceErrorReporter err;
  template <typename T> __device__ T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) {
      return mode == Rounding::Floor ? div_floor_float(x, y) : std::trunc(x / y);
    } else {
      if (y == 0) {
        err.report(DeviceErrorKind::ZeroDivision, static_cast<int64_t>(x), 0);
        return T(0);
      }
      return mode == Rounding::Floor ? div_floor_int(x, y) : div_trunc_int(x, y);
    }
  }
};

struct Modulo {
  Sign sign;
  DeviceErrorReporter err;
  template <typename T> __device__ T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>) {
      return sign == Sign::Divisor ? rem_floor_float(x, y) : std::fmod(x, y);
    } else {
      if (y == 0) {
        err.report(DeviceErrorKind::ZeroDivision, static_cast<int64_t>(x), 0);
        return T(0);
      }
      return sign == Sign::Divisor ? rem_floor_int(x, y) : rem_int(x, y);
    }
  }
};

// Where the kernel reports: the device of the CUDA operand (the other may be a Python number).
DeviceErrorReporter reporter(const OpCall& c) {
  const Tensor& t = c.in(0).is_cpu() ? c.in(1) : c.in(0);
  return device_error_reporter(t.device().index, c.op);
}

void div_kernel(OpCall& c) {
  const DivArgs a = DivArgs::from(c);
  if (!a.rounding_mode) return float_binary(c, TrueDiv{});  // integers divide as floats
  Rounding r = *a.rounding_mode == "floor" ? Rounding::Floor : Rounding::Trunc;
  promoted_binary<DTypes::Numeric>(c, DivRounded{r, reporter(c)});
}

void remainder_kernel(OpCall& c) {
  promoted_binary<DTypes::Numeric, false, true>(c, Modulo{Sign::Divisor, reporter(c)});
}
void fmod_kernel(OpCall& c) { promoted_binary<DTypes::Numeric, false, true>(c, Modulo{Sign::Dividend, reporter(c)}); }

EMBER_REGISTER_KERNEL(div, CUDA, div_kernel);
EMBER_REGISTER_KERNEL(remainder, CUDA, remainder_kernel);
EMBER_REGISTER_KERNEL(fmod, CUDA, fmod_kernel);

}  // namespace
}  // namespace ember::cuda
