// ember::save / ember::load (include/ember/serialize.h) over the safetensors
// reader and writer.
#include "ember/serialize.h"
#include "serialize/safetensors.h"

namespace ember {

namespace {

// The structure ember.save (Python) writes for a lone tensor, so that ember.load
// returns a tensor rather than a dict for the files of save(tensor, path).
std::string lone_tensor_structure() {
  return detail::str("{\"format_version\":", serialize::kEmberFormatVersion,
                     ",\"structure\":{\"tensor\":\"tensor\"}}");
}

}  // namespace

void save(const std::map<std::string, Tensor>& tensors, const std::string& path,
          const std::map<std::string, std::string>& metadata) {
  EMBER_CHECK_VALUE(!metadata.count(serialize::kEmberMetadataKey), "save: the metadata key '",
                    serialize::kEmberMetadataKey, "' is reserved for ember.save's own use");
  serialize::save_safetensors(path, serialize::NamedTensors(tensors.begin(), tensors.end()),
                              metadata);
}

void save(const Tensor& tensor, const std::string& path) {
  serialize::save_safetensors(path, {{"tensor", tensor}},
                              {{serialize::kEmberMetadataKey, lone_tensor_structure()}});
}

std::map<std::string, Tensor> load(const std::string& path) {
  serialize::Contents contents = serialize::read_safetensors(serialize::FileSource(path));
  return {std::make_move_iterator(contents.tensors.begin()),
          std::make_move_iterator(contents.tensors.end())};
}

void load(Tensor& tensor, const std::string& path) {
  serialize::Contents contents = serialize::read_safetensors(serialize::FileSource(path));
  EMBER_CHECK(contents.tensors.size() == 1, "load: '", path, "' holds ", contents.tensors.size(),
              " tensors, not one; load(path) returns them all by name");
  tensor = std::move(contents.tensors.front().second);
}

std::map<std::string, std::string> load_metadata(const std::string& path) {
  return serialize::read_header(serialize::FileSource(path)).metadata;
}

}  // namespace ember
