// Comparison, logical and bitwise op functions: eq ... ge, logical_and/or/xor,
// bitwise_and/or/xor and the shifts, with their in-place forms.
#include "ops/elementwise_common.h"
#include "dispatch/op_ids/elementwise.h"

namespace ember {

using namespace elementwise_detail;

namespace {

// (In place, binary_ writes a bool result as 0/1 in self's dtype: any dtype takes a bool.)

// Bitwise ops need integers (or bool, unless they are shifts) once promoted.
DType bitwise_result(const char* op, const Tensor& a, const Tensor& b, bool allow_bool) {
  check_defined(op, a);
  check_defined(op, b);
  DType dt = result_type(a, b);
  if (!is_integral(dt, allow_bool)) not_implemented(op, dt);
  return dt;
}

}  // namespace

#define EMBER_COMPARISON(name)                                                                   \
  Tensor name(const Tensor& self, const Tensor& other) { return binary(opid::name, self, other); } \
  Tensor name(const Tensor& self, const Scalar& other) {                                         \
    return binary(opid::name, self, wrapped_scalar(other));                                      \
  }                                                                                              \
  Tensor& name##_(Tensor& self, const Tensor& other) {                                           \
    return binary_(#name "_", opid::name, self, other, kBool);                                   \
  }

EMBER_COMPARISON(eq)
EMBER_COMPARISON(ne)
EMBER_COMPARISON(lt)
EMBER_COMPARISON(le)
EMBER_COMPARISON(gt)
EMBER_COMPARISON(ge)
#undef EMBER_COMPARISON

#define EMBER_LOGICAL(name)                                                                      \
  Tensor name(const Tensor& self, const Tensor& other) { return binary(opid::name, self, other); } \
  Tensor& name##_(Tensor& self, const Tensor& other) {                                           \
    return binary_(#name "_", opid::name, self, other, kBool);                                   \
  }

EMBER_LOGICAL(logical_and)
EMBER_LOGICAL(logical_or)
EMBER_LOGICAL(logical_xor)
#undef EMBER_LOGICAL

#define EMBER_BITWISE(name, allow_bool)                                                          \
  Tensor name(const Tensor& self, const Tensor& other) {                                         \
    bitwise_result(#name, self, other, allow_bool);                                              \
    return binary(opid::name, self, other);                                                      \
  }                                                                                              \
  Tensor name(const Tensor& self, const Scalar& other) { return name(self, wrapped_scalar(other)); } \
  Tensor& name##_(Tensor& self, const Tensor& other) {                                           \
    return binary_(#name "_", opid::name, self, other,                                           \
                   bitwise_result(#name "_", self, other, allow_bool));                          \
  }

EMBER_BITWISE(bitwise_and, true)
EMBER_BITWISE(bitwise_or, true)
EMBER_BITWISE(bitwise_xor, true)
EMBER_BITWISE(bitwise_left_shift, false)
EMBER_BITWISE(bitwise_right_shift, false)
#undef EMBER_BITWISE

}  // namespace ember
