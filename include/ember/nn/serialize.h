// Saving and loading a module's state (torch::save(module, path) /
// torch::load(module, path)): the state_dict in a safetensors file, tensors
// named by their state_dict keys, which Python's ember.load reads back as
// the same (ordered) state_dict and Python's ember.save writes.
#pragma once
#include <memory>
#include <string>
#include <type_traits>

#include "ember/nn/module.h"
#include "ember/serialize.h"

namespace ember {

void save(const nn::Module& module, const std::string& path);
// Loads with module.load_state_dict(tensors, strict).
void load(nn::Module& module, const std::string& path, bool strict = true);

template <typename M>
void save(const nn::ModuleHolder<M>& module, const std::string& path) {
  save(static_cast<const nn::Module&>(*module), path);
}
template <typename M>
void load(nn::ModuleHolder<M>& module, const std::string& path, bool strict = true) {
  load(static_cast<nn::Module&>(*module), path, strict);
}
template <typename M>
  requires std::is_base_of_v<nn::Module, M>
void save(const std::shared_ptr<M>& module, const std::string& path) {
  save(static_cast<const nn::Module&>(*module), path);
}
template <typename M>
  requires std::is_base_of_v<nn::Module, M>
void load(const std::shared_ptr<M>& module, const std::string& path, bool strict = true) {
  load(static_cast<nn::Module&>(*module), path, strict);
}

}  // namespace ember
