// A module's state_dict to and from safetensors files. The file also carries
// the structure Python's ember.save writes for a dict (its keys in order), so
// that Python's ember.load returns the state_dict in the module's order.
#include "ember/nn/serialize.h"

#include <nlohmann/json.hpp>

#include "serialize/safetensors.h"

namespace ember {

void save(const nn::Module& module, const std::string& path) {
  serialize::NamedTensors tensors;
  nlohmann::json items = nlohmann::json::array();
  for (const auto& item : module.state_dict()) {
    tensors.emplace_back(item.key(), item.value());
    items.push_back(nlohmann::json::array({item.key(), nlohmann::json{{"tensor", item.key()}}}));
  }
  nlohmann::json structure = {{"format_version", serialize::kEmberFormatVersion},
                              {"structure", {{"dict", items}}}};
  serialize::save_safetensors(path, tensors, {{serialize::kEmberMetadataKey, structure.dump()}});
}

void load(nn::Module& module, const std::string& path, bool strict) {
  module.load_state_dict(load(path), strict);
}

}  // namespace ember
