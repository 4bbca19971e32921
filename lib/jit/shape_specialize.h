// A graph made concrete for one call's input sizes (jit/symbolic.h): the
// symbols bound from the inputs, the guards checked, every symbolic attribute
// and size evaluated. The interpreter runs each node with the specialization's
// attributes and checks each node's output sizes against it, so a graph that
// does not generalize to the inputs raises an error instead of a wrong answer.
//
// Static graphs (traced without dynamic_shapes) get one unchecked specialization:
// they run on inputs of other sizes as PyTorch's traces do, their sizes baked in.
#pragma once
#include <memory>
#include <mutex>
#include <vector>

#include "jit/graph.h"

namespace ember::jit {

struct Specialization {
  std::vector<int64_t> symbols;  // the binding
  Device device = kCPU;          // where its constants are (the graph's device)
  bool checked = true;           // false for static graphs: output sizes are not checked
  // Per node: its attributes with the expressions evaluated; empty for nodes
  // without symbolic attributes (they use Node::attrs).
  std::vector<std::vector<Attr>> attrs;
  // Per value: its sizes at this binding (-1 in a dim that depends on data).
  std::vector<DimVector> sizes;
  // Symbolic 0-dim constants (Value::value_expr), by value id; others undefined.
  std::vector<Tensor> constants;

  const std::vector<Attr>& attrs_of(const Graph& g, int32_t node) const {
    const auto& a = attrs[static_cast<size_t>(node)];
    return a.empty() ? g.nodes[static_cast<size_t>(node)].attrs : a;
  }
};

// The symbols' values for these inputs. Throws an Error naming the input, the dim
// and the guard it breaks (a static dim of another size, a symbol out of its
// range or not divisible, two dims of one symbol that differ).
std::vector<int64_t> bind_symbols(const Graph& g, const std::vector<Tensor>& inputs);

// Works out the specialization of g at a binding (bind_symbols's result), its
// constants on `device`.
std::shared_ptr<const Specialization> specialize(const Graph& g, const std::vector<int64_t>& symbols,
                                                 Device device = kCPU);

// The specializations a graph has needed, by binding: thread-safe, bounded.
class SpecializationCache {
 public:
  std::shared_ptr<const Specialization> get(const Graph& g, const std::vector<Tensor>& inputs,
                                            Device device);

 private:
  static constexpr size_t kMaxEntries = 32;
  std::mutex mutex_;
  std::vector<std::shared_ptr<const Specialization>> entries_;  // most recent last
};

// Throws when node n's outputs do not have the sizes the specialization says.
void check_output_sizes(const Graph& g, const Specialization& spec, int32_t n,
                        const std::vector<Tensor>& outputs);

}  // namespace ember::jit
