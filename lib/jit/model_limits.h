// The bounds every graph read from a model file must respect, and the error a
// malformed file gives. A model file comes from anywhere: these limits keep a
// hostile one from making the loader allocate without bound, overflow a size
// computation or recurse deeply, long before anything runs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "ember/error.h"

namespace ember::jit {

constexpr size_t kMaxGraphValues = size_t{1} << 22;      // values (inputs, weights, node outputs)
constexpr size_t kMaxGraphNodes = size_t{1} << 21;
constexpr size_t kMaxNodeInputs = size_t{1} << 16;       // tensor inputs, presets, outputs of a node
constexpr size_t kMaxNodeAttrs = 64;
constexpr size_t kMaxAttrInts = size_t{1} << 16;         // entries of an int-list attribute
constexpr size_t kMaxNameLength = 4096;                  // value names and string attributes
constexpr size_t kMaxValueDims = 64;                     // as safetensors' kMaxDims
constexpr uint64_t kMaxValueBytes = uint64_t{1} << 48;   // one value's traced tensor
constexpr int kMaxOutputNesting = 32;
constexpr size_t kMaxSymbols = 16;      // dynamic sizes of one graph
constexpr size_t kMaxExprTerms = 256;   // terms of one size expression
constexpr size_t kMaxTermDegree = 4;    // symbols multiplied in one term                    // nested tuples of forward's result
// The graph JSON's nesting: root, "nodes", a node, "attrs", an attr, an int list.
constexpr int kMaxGraphJsonDepth = 5;
constexpr size_t kMaxGraphJsonElements = size_t{1} << 25;

// Throws the model loader's error: "<source>: <what>", where source says what
// was being done to which file ("cannot load model 'm.ember'").
template <typename... Args>
[[noreturn]] void bad_model(const std::string& source, const Args&... what) {
  throw Error(detail::str(source, ": ", what...));
}

}  // namespace ember::jit
