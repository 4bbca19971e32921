// Symbolic sizes of traced graphs (docs/jit.md, "Dynamic shapes").
//
// A graph traced with dynamic_shapes names some input dims as symbols ("batch",
// "seq"). Every size and integer attribute that follows them is stored as an
// expression: a polynomial of the symbols with rational coefficients
// ("2*batch", "batch*seq", "seq/2 + 1"). The expressions are found by tracing
// at several sizes and fitting (jit/symbolic_fit.h), so they are exactly the
// shape logic the ops and the user's Python code ran, with no separate shape
// function that could drift from the kernels.
//
// At run time the interpreter binds the symbols from the inputs' sizes, checks
// the guards (ranges, divisibility, dims that must be equal or static) and
// evaluates the expressions (jit/shape_specialize.h).
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ember::jit {

// One dynamic size: an input dim marked with ember.jit.Dim.
struct Symbol {
  std::string name;  // "batch"
  // Guards a run checks: min <= value <= max and value % modulus == remainder
  // (a modulus above 1 comes from shape logic that divides: view(seq / 2, 2)).
  int64_t min = 0;
  int64_t max = std::numeric_limits<int64_t>::max();
  int64_t modulus = 1;
  int64_t remainder = 0;
  int64_t traced = 0;  // its value in the example inputs
};

// num/den times the product of `symbols` (indices into Graph::symbols, sorted;
// a symbol repeated is a power). den > 0 and gcd(num, den) == 1.
struct SymTerm {
  int64_t num = 0;
  int64_t den = 1;
  std::vector<int32_t> symbols;
};

// A size as the sum of its terms (no terms: 0).
struct SymExpr {
  std::vector<SymTerm> terms;
  bool operator==(const SymExpr& o) const;
};

// The expression `symbol` (one term, coefficient 1) when e is exactly one
// symbol, else -1: the input dims a run binds the symbols from.
int32_t bare_symbol(const SymExpr& e);

// e at the symbols' values; nullopt when it is not an integer there (the
// divisibility guards prevent that) or overflows int64.
std::optional<int64_t> evaluate(const SymExpr& e, const std::vector<int64_t>& values);

// "2*batch + 1", "batch*seq", "seq/2", "0".
std::string expr_str(const SymExpr& e, const std::vector<Symbol>& symbols);

// A symbolic dim of Value::size_exprs: an index into Graph::exprs, or one of these.
constexpr int32_t kStaticDim = -1;   // the traced size (Value::sizes[d]) at every run
constexpr int32_t kUnknownDim = -2;  // data-dependent (after nonzero, masked_select): not checked

// An integer attribute of a node that is an expression: the attr's whole value
// (an int or an integer Scalar) when element == -1, else one entry of an int list.
struct SymAttr {
  int32_t attr = 0;
  int32_t element = -1;
  int32_t expr = 0;
};

}  // namespace ember::jit
