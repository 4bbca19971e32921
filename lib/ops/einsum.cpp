// torch.einsum as a composite. Each operand's repeated labels become a diagonal; the
// operands are then aligned to one global label order (output labels first, size-1
// dims where an operand lacks a label, so size-1 dims broadcast), and contracted
// pairwise, left to right: labels summed in one operand only are summed first, the
// rest of a pair goes through one bmm ([batch, left, sum] @ [batch, sum, right]).
#include <algorithm>
#include <cctype>
#include <numeric>

#include "ember/ops/elementwise.h"
#include "ember/ops/linalg.h"
#include "ember/ops/linalg_extra.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"
#include "dispatch/op_ids/reduce.h"

namespace ember {

namespace {

constexpr int kLetters = 52;  // A-Z then a-z (PyTorch's label order); ellipsis dims after

int label_of(char c) { return std::isupper(static_cast<unsigned char>(c)) ? c - 'A' : c - 'a' + 26; }
// The subscript of a label ("..." for an ellipsis dim).
std::string label_char(int l) {
  if (l >= kLetters) return "...";
  return std::string(1, static_cast<char>(l < 26 ? 'A' + l : 'a' + l - 26));
}

// One operand's (or the output's) subscripts: letter labels, with the ellipsis position.
struct Term {
  std::vector<int> labels;
  int ellipsis_at = -1;  // index into labels where "..." stands; -1: none
};

Term parse_term(const std::string& eq, size_t begin, size_t end) {
  Term t;
  for (size_t i = begin; i < end; ++i) {
    char c = eq[i];
    if (c == '.') {
      EMBER_CHECK(t.ellipsis_at < 0 && i + 3 <= end && eq.compare(i, 3, "...") == 0,
                  "einsum(): found '.' for operand that is not part of any ellipsis");
      t.ellipsis_at = static_cast<int>(t.labels.size());
      i += 2;
    } else {
      EMBER_CHECK(std::isalpha(static_cast<unsigned char>(c)), "einsum(): invalid subscript given at index ",
                  i, " in the equation string, subscripts must be in [a-zA-Z]");
      t.labels.push_back(label_of(c));
    }
  }
  return t;
}

// Takes the diagonal of every label that appears twice in `labels` (dims of x).
Tensor take_diagonals(Tensor x, std::vector<int>& labels) {
  for (size_t i = 0; i < labels.size(); ++i) {
    for (size_t j = i + 1; j < labels.size(); ++j) {
      if (labels[i] != labels[j]) continue;
      EMBER_CHECK(x.size(i) == x.size(j), "einsum(): subscript ", label_char(labels[i]),
                  " is repeated for operand but the sizes don't match, ", x.size(i), " != ", x.size(j));
      x = diagonal(x, 0, static_cast<int64_t>(i), static_cast<int64_t>(j));  // moved to the end
      int l = labels[i];
      labels.erase(labels.begin() + j);
      labels.erase(labels.begin() + i);
      labels.push_back(l);
      i = static_cast<size_t>(-1);
      break;
    }
  }
  return x;
}

IntList to_ints(const DimVector& v) { return IntList(v.begin(), v.end()); }

// Contracts a and b (both aligned to the global order, `n` dims) over `summed` labels.
Tensor contract(Tensor a, Tensor b, const std::vector<bool>& summed, const DimVector& size) {
  int64_t n = static_cast<int64_t>(size.size());
  auto present = [&](const Tensor& t, int64_t d) { return size[d] != 1 && t.size(d) == size[d]; };
  IntList a_only_sum, b_only_sum;
  for (int64_t d = 0; d < n; ++d) {
    if (!summed[d]) continue;
    if (present(a, d) && !present(b, d)) a_only_sum.push_back(d);
    if (present(b, d) && !present(a, d)) b_only_sum.push_back(d);
  }
  if (!a_only_sum.empty()) a = sum(a, a_only_sum, true);
  if (!b_only_sum.empty()) b = sum(b, b_only_sum, true);
  IntList batch, left, right, inner, rest;
  for (int64_t d = 0; d < n; ++d) {
    bool pa = present(a, d), pb = present(b, d);
    if (pa && pb) (summed[d] ? inner : batch).push_back(d);
    else if (pa) left.push_back(d);
    else if (pb) right.push_back(d);
    else rest.push_back(d);
  }
  auto prod = [&](const IntList& ds) {
    int64_t p = 1;
    for (int64_t d : ds) p *= size[d];
    return p;
  };
  auto cat_dims = [](std::initializer_list<const IntList*> parts) {
    IntList out;
    for (const IntList* p : parts) out.insert(out.end(), p->begin(), p->end());
    return out;
  };
  // Dims of an operand that it lacks are size 1: moving them last and reshaping drops them.
  IntList pa_order = cat_dims({&batch, &left, &inner, &right, &rest});
  IntList pb_order = cat_dims({&batch, &inner, &right, &left, &rest});
  Tensor am = reshape(permute(a, pa_order), {prod(batch), prod(left), prod(inner)});
  Tensor bm = reshape(permute(b, pb_order), {prod(batch), prod(inner), prod(right)});
  Tensor r = bmm(am, bm);
  // [batch, left, right] back to the global order, size 1 elsewhere.
  IntList out_order = cat_dims({&batch, &left, &right, &inner, &rest});
  IntList shape;
  for (const IntList* part : {&batch, &left, &right})
    for (int64_t d : *part) shape.push_back(size[d]);
  shape.resize(n, 1);  // inner (summed) and rest dims
  r = reshape(r, shape);
  IntList inverse(n);
  for (int64_t i = 0; i < n; ++i) inverse[out_order[i]] = i;
  return permute(r, inverse);
}

}  // namespace

Tensor einsum(const std::string& equation_in, const TensorList& operands) {
  EMBER_CHECK(!operands.empty(), "einsum(): must provide at least one operand");
  std::string eq;
  for (char c : equation_in)
    if (!std::isspace(static_cast<unsigned char>(c))) eq += c;
  size_t arrow = eq.find("->");
  std::string lhs = arrow == std::string::npos ? eq : eq.substr(0, arrow);
  std::vector<Term> terms;
  size_t start = 0;
  for (size_t i = 0; i <= lhs.size(); ++i) {
    if (i == lhs.size() || lhs[i] == ',') {
      terms.push_back(parse_term(lhs, start, i));
      start = i + 1;
    }
  }
  size_t nops = operands.size();
  for (const Tensor& op : operands)
    EMBER_CHECK(op.dtype() == operands[0].dtype(), "expected scalar type ", scalar_type_name(operands[0].dtype()),
                " but found ", scalar_type_name(op.dtype()));
  EMBER_CHECK(terms.size() <= nops, "einsum(): fewer operands were provided than specified in the equation");
  EMBER_CHECK(terms.size() >= nops, "einsum(): more operands were provided than specified in the equation");
  // Per-operand labels, ellipsis dims numbered from the right so that they broadcast.
  int64_t ell = 0;
  for (size_t i = 0; i < nops; ++i) {
    int64_t nl = static_cast<int64_t>(terms[i].labels.size()), nd = operands[i].dim();
    if (terms[i].ellipsis_at < 0) {
      EMBER_CHECK(nl == nd, "einsum(): the number of subscripts in the equation (", nl,
                  ") does not match the number of dimensions (", nd, ") for operand ", i,
                  " and no ellipsis was given");
    } else {
      EMBER_CHECK(nl <= nd, "einsum(): the number of subscripts in the equation (", nl,
                  ") is more than the number of dimensions (", nd, ") for operand ", i);
      ell = std::max(ell, nd - nl);
    }
  }
  int total = kLetters + static_cast<int>(ell);
  std::vector<int> counts(total, 0);
  std::vector<std::vector<int>> op_labels(nops);
  for (size_t i = 0; i < nops; ++i) {
    const Term& t = terms[i];
    int64_t e = operands[i].dim() - static_cast<int64_t>(t.labels.size());
    for (size_t k = 0; k <= t.labels.size(); ++k) {
      if (static_cast<int>(k) == t.ellipsis_at)
        for (int64_t j = 0; j < e; ++j) op_labels[i].push_back(kLetters + static_cast<int>(ell - e + j));
      if (k < t.labels.size()) op_labels[i].push_back(t.labels[k]);
    }
    std::vector<bool> seen(total, false);
    for (int l : op_labels[i])
      if (!seen[l]) seen[l] = true, counts[l]++;
  }
  // Occurrences over all operands (a label repeated within one operand counts once
  // there, as that is a diagonal) decide the implicit output.
  std::vector<int> letter_uses(kLetters, 0);
  for (const Term& t : terms)
    for (int l : t.labels) letter_uses[l]++;
  std::vector<int> out;
  if (arrow == std::string::npos) {
    for (int j = 0; j < ell; ++j) out.push_back(kLetters + j);
    for (int l = 0; l < kLetters; ++l)
      if (letter_uses[l] == 1) out.push_back(l);
  } else {
    Term ot = parse_term(eq, arrow + 2, eq.size());
    std::vector<bool> used(kLetters, false);
    for (size_t k = 0; k <= ot.labels.size(); ++k) {
      if (static_cast<int>(k) == ot.ellipsis_at)
        for (int j = 0; j < ell; ++j) out.push_back(kLetters + j);
      if (k == ot.labels.size()) break;
      int l = ot.labels[k];
      std::string c = label_char(l);
      EMBER_CHECK(!used[l], "einsum(): output subscript ", c, " appears more than once in the output");
      EMBER_CHECK(counts[l] > 0, "einsum(): output subscript ", c,
                  " does not appear in the equation for any input operand");
      used[l] = true;
      out.push_back(l);
    }
  }
  // The global order: output labels, then every other label used.
  std::vector<int> order = out;
  for (int l = 0; l < total; ++l)
    if (counts[l] > 0 && std::find(out.begin(), out.end(), l) == out.end()) order.push_back(l);
  std::vector<int> pos(total, -1);
  for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<int>(i);
  int64_t n = static_cast<int64_t>(order.size());
  // Align every operand: diagonals, then permute its labels into global order, size 1 elsewhere.
  std::vector<Tensor> aligned(nops);
  DimVector size(n, 1);
  for (size_t i = 0; i < nops; ++i) {
    std::vector<int> labels = op_labels[i];
    Tensor x = take_diagonals(operands[i], labels);
    IntList perm(labels.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::sort(perm.begin(), perm.end(), [&](int64_t p, int64_t q) { return pos[labels[p]] < pos[labels[q]]; });
    x = permute(x, perm);
    IntList shape(n, 1);
    for (size_t k = 0; k < perm.size(); ++k) shape[pos[labels[perm[k]]]] = x.size(static_cast<int64_t>(k));
    for (int64_t d = 0; d < n; ++d) {
      if (shape[d] == 1) continue;
      EMBER_CHECK(size[d] == 1 || size[d] == shape[d], "einsum(): subscript ", label_char(order[d]), " has size ",
                  shape[d], " for operand ", i, " which does not broadcast with previously seen size ", size[d]);
      size[d] = shape[d];
    }
    aligned[i] = reshape(x, shape);
  }
  for (size_t i = 0; i < nops; ++i)
    for (int64_t d = 0; d < n; ++d)
      EMBER_CHECK(aligned[i].size(d) == 1 || aligned[i].size(d) == size[d],
                  "einsum(): operands do not broadcast with remapped shapes (original->remapped): ",
                  shape_str(operands[i].sizes()), "->", shape_str(aligned[i].sizes()));
  // Which operand uses each label last: after it, the label can be summed.
  std::vector<size_t> last_use(n, 0);
  for (size_t i = 0; i < nops; ++i)
    for (int l : op_labels[i]) last_use[pos[l]] = i;
  int64_t nout = static_cast<int64_t>(out.size());
  Tensor result = aligned[0];
  for (size_t i = 1; i < nops; ++i) {
    std::vector<bool> summed(n, false);
    for (int64_t d = nout; d < n; ++d) summed[d] = last_use[d] <= i;
    result = contract(result, aligned[i], summed, size);
  }
  IntList rest;
  for (int64_t d = nout; d < n; ++d) rest.push_back(d);
  if (!rest.empty()) result = sum(result, rest, false);
  // Output labels some operand had with size 1 broadcast to the full size.
  DimVector out_size(size.begin(), size.begin() + nout);
  if (result.sizes() != out_size) result = expand(result, to_ints(out_size));
  return result;
}

}  // namespace ember
