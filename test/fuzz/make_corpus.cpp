// Writes the fuzz harness's seed corpus: valid model files of the hand-made
// graphs of the model-file tests (test/cpp/jit/model_test_graphs.h), so that no
// binary files live in the repository. Usage: make_fuzz_corpus <dir>.
#include <cstdio>
#include <string>

#include "../cpp/jit/model_test_graphs.h"
#include "jit/model_file.h"

using namespace ember;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  jit::save_model(test::mlp_graph(), dir + "/mlp.ember");
  jit::save_model(test::feature_graph(), dir + "/features.ember");
  // Every kind of attribute (the graph loads; running it would fail in add).
  jit::Graph attrs = test::mlp_graph();
  attrs.nodes[1].attrs = test::tricky_attrs();
  jit::save_model(attrs, dir + "/attrs.ember");
  // Symbolic sizes and attributes (format 2).
  jit::save_model(test::symbolic_mlp_graph(), dir + "/symbolic.ember");
  std::printf("wrote 4 model files to %s\n", dir.c_str());
  return 0;
}
