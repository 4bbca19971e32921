// Runs a traced model from C++, without Python: the deployment half of
// examples/trace_export.py.
//
//   build/examples/deploy MODEL.ember INPUTS.safetensors [--out OUTPUTS.safetensors]
//
// INPUTS holds the model's inputs as "x" (then "x1", "x2", ... for more), and
// optionally "logits": the outputs the Python model gave, to compare with.
// Prints the predicted class of each row of the first output, and with --out
// writes every output ("y0", "y1", ...) to a safetensors file.
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <ember/ember.h>

using ember::Tensor;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " MODEL.ember INPUTS.safetensors [--out OUTPUTS]\n";
    return 2;
  }
  std::string out_path;
  for (int i = 3; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--out") out_path = argv[i + 1];

  try {
    ember::jit::Module model = ember::jit::load(argv[1]);
    std::map<std::string, Tensor> file = ember::load(argv[2]);
    std::vector<Tensor> inputs;
    for (std::string name = "x"; file.count(name); name = "x" + std::to_string(inputs.size()))
      inputs.push_back(file.at(name));

    ember::NoGradGuard no_grad;
    std::vector<Tensor> outputs = model.forward(inputs);

    const Tensor& first = outputs.at(0);
    if (first.dim() == 2) {
      Tensor predicted = first.argmax(1);
      std::cout << "predictions:";
      for (int64_t i = 0; i < predicted.size(0); ++i) std::cout << " " << predicted.select(0, i).item<int64_t>();
      std::cout << "\n";
    }
    if (file.count("logits"))
      std::cout << "max |C++ - Python| = "
                << (first - file.at("logits")).abs().max().item<double>() << "\n";
    if (!out_path.empty()) {
      std::map<std::string, Tensor> named;
      for (size_t i = 0; i < outputs.size(); ++i) named["y" + std::to_string(i)] = outputs[i];
      ember::save(named, out_path);
    }
  } catch (const ember::Error& e) {
    std::cerr << "deploy: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
