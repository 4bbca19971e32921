// libFuzzer harness for the model-file loader (issue 6; docs/RELIABILITY.md).
//
// Each input is the bytes of a would-be model file. Loading it must either give
// a Graph that passed check_graph or throw ember::Error: any other exception, a
// crash, a hang or a sanitizer report (the build uses ASan and UBSan) is a bug.
//
// A graph that loads is also run, on zero inputs of its traced shapes: a node
// from a file reaches its op's public function only through the invoker's
// checked accessors, and this checks that claim too. Only small graphs run
// (kRunBytes per value, kRunNodes nodes), so that the fuzzer looks for crashes
// rather than for graphs that merely allocate or compute a lot.
//
// Most byte mutations of a model file break its safetensors framing (the header
// length, the JSON quoting of the graph), so half of the mutations are made
// inside the graph JSON instead and the file is re-framed around it: the fuzzer
// then explores the graph parser and check_graph as well as the reader.
//
// Build and run: `make fuzz` (FUZZ_SECONDS=600 by default).
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

#include "jit/interpreter.h"
#include "jit/model_file.h"
#include "ember/ops/factories.h"
#include "serialize/safetensors.h"

using namespace ember;

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

constexpr uint64_t kRunBytes = 1 << 16;
constexpr size_t kRunNodes = 64;

jit::Graph load(std::string_view bytes) {
  return jit::read_model(serialize::MemorySource(bytes, "'fuzz input'"));
}

// Bytes of a value of these sizes (check_graph bounded them: no overflow).
uint64_t value_bytes(const jit::Value& v) {
  uint64_t n = itemsize(v.dtype);
  for (int64_t d : v.sizes) n *= static_cast<uint64_t>(d);
  return n;
}

void run(const jit::Graph& g) {
  if (g.nodes.size() > kRunNodes) return;
  for (const jit::Value& v : g.values)
    if (value_bytes(v) > kRunBytes) return;
  std::vector<Tensor> inputs;
  for (jit::ValueId id : g.inputs) {
    const jit::Value& v = g.values[static_cast<size_t>(id)];
    inputs.push_back(zeros(IntList(v.sizes.begin(), v.sizes.end()), TensorOptions(v.dtype)));
  }
  jit::run_graph(g, inputs, kCPU);
}

// The file with the graph JSON of its metadata mutated, or "" if the file is not
// well-framed enough to find the graph (or the mutation is not valid UTF-8).
std::string mutate_graph(std::string_view file, size_t max_size) {
  try {
    serialize::MemorySource source(file, "'fuzz input'");
    uint64_t data_start;
    serialize::Header header = serialize::read_header(source, &data_start);
    auto graph = header.metadata.find("graph");
    if (graph == header.metadata.end()) return "";
    std::string text = graph->second;
    size_t size = text.size();
    text.resize(size + 64 + size / 8);  // room for mutations that grow it
    text.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(text.data()), size, text.size()));
    graph->second = text;
    std::string json = serialize::format_header(header.tensors, header.metadata);
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(uint64_t{json.size()} >> (8 * i));
    out += json;
    out += file.substr(data_start);
    return out.size() <= max_size ? out : "";
  } catch (const Error&) {
    return "";
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    run(load(std::string_view(reinterpret_cast<const char*>(data), size)));
  } catch (const Error&) {
    // A clear error is the expected outcome for almost every input.
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  if (seed % 2 == 0) {
    std::string mutated =
        mutate_graph(std::string_view(reinterpret_cast<const char*>(data), size), max_size);
    if (!mutated.empty()) {
      std::memcpy(data, mutated.data(), mutated.size());
      return mutated.size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
