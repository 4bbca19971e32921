// Activation epilogues: a relu that only reads the output of a GEMM or a convolution
// (addmm, mm, conv2d) runs as that node's epilogue, in place on its output
// while the block is still in cache, instead of as a node of its own through the
// dispatcher (about a microsecond per node at batch 1, where the digits MLP has as
// many relus as products: bench/deploy_runtime.py).
//
// The graph is not changed (the file, the listing and every other run see the relu
// node); the interpreter skips the relu node when the epilogue ran. It runs only when
// the result is then exactly what the relu node would give and nothing could tell
// the difference: a CPU float32/float64 dense output that does not require grad (so
// no autograd history is lost), no trace recording this run, and the producer's output
// read by the relu alone (not a graph output). Otherwise the relu runs as a node.
#pragma once
#include <cstdint>
#include <vector>

#include "jit/graph.h"

namespace ember::jit::runtime {

// Per node: the relu node that may run as its epilogue, or -1. Nodes in `skip`
// (members of pointwise fusion groups) are neither producers nor relus here.
std::vector<int32_t> find_relu_epilogues(const Graph& g, const std::vector<int32_t>& skip);

// relu applied to t in place when the conditions above hold; false (t untouched)
// otherwise.
bool relu_in_place(const Tensor& t);

}  // namespace ember::jit::runtime
