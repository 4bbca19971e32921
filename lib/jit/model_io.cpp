// jit::Module::save and jit::load (include/ember/jit.h) over the model file
// (lib/jit/model_file.h); the rest of jit::Module is in module.cpp.
#include "ember/jit.h"
#include "jit/model_file.h"

namespace ember::jit {

void Module::save(const std::string& path) const { save_model(graph(), path); }

Module load(const std::string& path, std::optional<Device> map_location) {
  Module module(std::make_shared<Graph>(load_model(path, map_location)));
  // The device where factory ops of the graph put their results (a graph
  // without tensors would otherwise run them on the CPU).
  if (map_location) module.to(*map_location);
  return module;
}

}  // namespace ember::jit
