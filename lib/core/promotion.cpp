// result_type and can_cast: PyTorch's promotion of an op's operands.
#include "ember/ops/views.h"

namespace ember {

namespace {
enum Category { kNone = -1, kBoolCat = 0, kIntCat = 1, kFloatCat = 2 };
Category category(DType t) { return t == kBool ? kBoolCat : is_floating(t) ? kFloatCat : kIntCat; }

struct Partial {  // the promoted dtype of one priority group, if any operand was in it
  bool set = false;
  DType dtype = kBool;
  void add(DType t) { dtype = set ? promote_types(dtype, t) : t; set = true; }
};

// A lower-priority group changes the result only if it is of a higher category
// (a float scalar with an int tensor gives float; an int scalar with an int8 tensor stays int8).
Partial combine(Partial higher, Partial lower) {
  if (!higher.set) return lower;
  if (!lower.set) return higher;
  if (category(higher.dtype) == kFloatCat) return higher;
  if (higher.dtype == kBool || category(lower.dtype) == kFloatCat) {
    higher.add(lower.dtype);
    return higher;
  }
  return higher;
}
}  // namespace

// Note [Type promotion]: operands fall in three priority groups: tensors with
// dims, 0-dim tensors, and wrapped Python numbers. Each group is promoted on its
// own; a lower group only matters when its category (bool < int < float) is
// higher. A wrapped float counts as the default float type.
DType result_type(std::initializer_list<const Tensor*> operands) {
  Partial dims, zero_dim, wrapped;
  for (const Tensor* t : operands) {
    if (!t || !t->defined()) continue;
    DType dt = t->dtype();
    if (t->impl()->is_wrapped_number) wrapped.add(is_floating(dt) ? default_dtype() : dt);
    else if (t->dim() == 0) zero_dim.add(dt);
    else dims.add(dt);
  }
  Partial r = combine(dims, combine(zero_dim, wrapped));
  return r.set ? r.dtype : default_dtype();
}

DType result_type(const Tensor& a, const Tensor& b) { return result_type({&a, &b}); }

bool can_cast(DType from, DType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

}  // namespace ember
