#include "ember/dtype.h"

#include <atomic>

#include "ember/error.h"

namespace ember {

const char* dtype_name(DType t) {
  static const char* const names[kNumDTypes] = {"bool",    "uint8",    "int8",    "int16",
                                                "int32",   "int64",    "float16", "bfloat16",
                                                "float32", "float64"};
  return names[static_cast<int>(t)];
}

const char* scalar_type_name(DType t) {
  static const char* const names[kNumDTypes] = {"Bool", "Byte",  "Char",     "Short", "Int",
                                                "Long", "Half", "BFloat16", "Float", "Double"};
  return names[static_cast<int>(t)];
}

DType dtype_from_name(const std::string& name) {
  struct Alias { const char* name; DType dtype; };
  static const Alias aliases[] = {
      {"bool", kBool},       {"uint8", kUInt8},     {"int8", kInt8},         {"int16", kInt16},
      {"short", kInt16},     {"int32", kInt32},     {"int", kInt32},         {"int64", kInt64},
      {"long", kInt64},      {"float16", kFloat16}, {"half", kFloat16},      {"bfloat16", kBFloat16},
      {"float32", kFloat32}, {"float", kFloat32},   {"float64", kFloat64},   {"double", kFloat64},
  };
  std::string n = name.rfind("torch.", 0) == 0 ? name.substr(6)
                  : name.rfind("ember.", 0) == 0 ? name.substr(6) : name;
  for (const Alias& a : aliases)
    if (n == a.name) return a.dtype;
  throw TypeError("unknown dtype '" + name + "'");
}

// Note [Type promotion]: the rules of torch.promote_types. bool joins anything;
// a float beats any integer; float16 with bfloat16 needs float32; uint8 with a
// signed type needs a signed type wide enough for both (int8 -> int16).
DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == kBool) return b;
  if (b == kBool) return a;
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if ((a == kFloat16 && b == kBFloat16) || (a == kBFloat16 && b == kFloat16)) return kFloat32;
    return itemsize(a) >= itemsize(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  if (a == kUInt8 || b == kUInt8) {
    DType s = a == kUInt8 ? b : a;
    return s == kInt8 ? kInt16 : s;
  }
  return itemsize(a) >= itemsize(b) ? a : b;
}

static std::atomic<DType> g_default_dtype{kFloat32};
DType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(DType t) {
  EMBER_CHECK_TYPE(is_floating(t), "set_default_dtype: only floating-point types are supported "
                   "as the default type, got ", dtype_name(t));
  g_default_dtype.store(t, std::memory_order_relaxed);
}

}  // namespace ember
