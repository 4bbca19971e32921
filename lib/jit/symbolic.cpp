// Size expressions (jit/symbolic.h).
#include "jit/symbolic.h"

namespace ember::jit {

bool SymExpr::operator==(const SymExpr& o) const {
  if (terms.size() != o.terms.size()) return false;
  for (size_t i = 0; i < terms.size(); ++i)
    if (terms[i].num != o.terms[i].num || terms[i].den != o.terms[i].den ||
        terms[i].symbols != o.terms[i].symbols)
      return false;
  return true;
}

int32_t bare_symbol(const SymExpr& e) {
  if (e.terms.size() != 1) return -1;
  const SymTerm& t = e.terms[0];
  return t.num == 1 && t.den == 1 && t.symbols.size() == 1 ? t.symbols[0] : -1;
}

std::optional<int64_t> evaluate(const SymExpr& e, const std::vector<int64_t>& values) {
  // Sum of num * product over the common denominator, in 128 bits: a size
  // expression's terms can each be large even when the sum is an ordinary size.
  __int128 lcm = 1;
  for (const SymTerm& t : e.terms) {
    if (t.den <= 0) return std::nullopt;
    __int128 a = lcm, b = t.den;
    while (b != 0) { __int128 r = a % b; a = b; b = r; }
    lcm = lcm / a * t.den;
    if (lcm > (__int128{1} << 62)) return std::nullopt;
  }
  __int128 sum = 0;
  constexpr __int128 kLimit = __int128{1} << 100;
  for (const SymTerm& t : e.terms) {
    __int128 term = static_cast<__int128>(t.num) * (lcm / t.den);
    for (int32_t s : t.symbols) {
      if (s < 0 || static_cast<size_t>(s) >= values.size()) return std::nullopt;
      term *= values[static_cast<size_t>(s)];
      if (term > kLimit || term < -kLimit) return std::nullopt;
    }
    sum += term;
    if (sum > kLimit || sum < -kLimit) return std::nullopt;
  }
  if (sum % lcm != 0) return std::nullopt;
  __int128 v = sum / lcm;
  if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min())
    return std::nullopt;
  return static_cast<int64_t>(v);
}

std::string expr_str(const SymExpr& e, const std::vector<Symbol>& symbols) {
  if (e.terms.empty()) return "0";
  std::string out;
  for (size_t i = 0; i < e.terms.size(); ++i) {
    const SymTerm& t = e.terms[i];
    int64_t num = t.num;
    if (i > 0) {
      out += num < 0 ? " - " : " + ";
      num = num < 0 ? -num : num;
    } else if (num < 0 && !t.symbols.empty()) {
      out += "-";
      num = -num;
    }
    std::string product;
    for (size_t k = 0; k < t.symbols.size(); ++k) {
      size_t s = static_cast<size_t>(t.symbols[k]);
      product += (k ? "*" : "") + (s < symbols.size() ? symbols[s].name : "s" + std::to_string(s));
    }
    if (product.empty()) {
      out += std::to_string(num);
    } else {
      out += num == 1 ? product : std::to_string(num) + "*" + product;
    }
    if (t.den != 1) out += "/" + std::to_string(t.den);
  }
  return out;
}

}  // namespace ember::jit
