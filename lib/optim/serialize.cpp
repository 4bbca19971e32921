// ember::save / ember::load of an optimizer: its state_dict() as the nest that
// Python's ember.save writes (python/ember/serialization.py documents the JSON:
// {"dict": [[key, node], ...]}, {"tuple": [...]}, {"tensor": name}, {"float": "inf"}),
// with the tensors in the safetensors file under their dotted paths.
#include "ember/optim/serialize.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <variant>

#include "serialize/safetensors.h"

namespace ember {
namespace {

using json = nlohmann::json;

json number(double d) {
  if (std::isnan(d)) return json{{"float", "nan"}};
  if (std::isinf(d)) return json{{"float", d > 0 ? "inf" : "-inf"}};
  return d;
}

json encode(const optim::OptimValue& value, const std::string& path, serialize::NamedTensors& tensors) {
  if (auto* b = std::get_if<bool>(&value)) return *b;
  if (auto* i = std::get_if<int64_t>(&value)) return *i;
  if (auto* d = std::get_if<double>(&value)) return number(*d);
  if (auto* list = std::get_if<std::vector<double>>(&value)) {
    json items = json::array();
    for (double d : *list) items.push_back(number(d));
    return json{{"tuple", items}};  // torch.optim keeps betas as a tuple
  }
  tensors.emplace_back(path, std::get<Tensor>(value));
  return json{{"tensor", path}};
}

json encode_values(const optim::OptimValues& values, const std::string& prefix,
                   serialize::NamedTensors& tensors) {
  json items = json::array();
  for (const auto& [name, value] : values) items.push_back({name, encode(value, prefix + name, tensors)});
  return items;
}

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw Error(detail::str("load: '", path, "' does not hold an optimizer state: ", what));
}

// The entries of a {"dict": [[key, node], ...]} node.
const json& dict_items(const json& node, const std::string& path, const char* what) {
  if (!node.is_object() || !node.contains("dict") || !node["dict"].is_array()) bad(path, detail::str(what, " is not a dict"));
  for (const json& item : node["dict"])
    if (!item.is_array() || item.size() != 2) bad(path, detail::str(what, " has a malformed entry"));
  return node["dict"];
}

double decode_number(const json& node, const std::string& path) {
  if (node.is_number()) return node.get<double>();
  if (node.is_object() && node.contains("float") && node["float"].is_string()) {
    std::string s = node["float"];
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    if (s == "nan") return NAN;
  }
  bad(path, "a list holds something other than numbers");
}

optim::OptimValue decode(const json& node, const std::map<std::string, Tensor>& tensors,
                         const std::string& path) {
  if (node.is_boolean()) return node.get<bool>();
  if (node.is_number_integer()) return node.get<int64_t>();
  if (node.is_number() || (node.is_object() && node.contains("float"))) return decode_number(node, path);
  if (node.is_object() && node.contains("tensor") && node["tensor"].is_string()) {
    auto it = tensors.find(node["tensor"].get<std::string>());
    if (it == tensors.end()) bad(path, detail::str("it names a tensor it lacks, ", node["tensor"].dump()));
    return it->second;
  }
  for (const char* kind : {"tuple", "list"}) {
    if (node.is_object() && node.contains(kind) && node[kind].is_array()) {
      std::vector<double> values;
      for (const json& item : node[kind]) values.push_back(decode_number(item, path));
      return values;
    }
  }
  bad(path, detail::str("a value it holds is not a number, a list of numbers or a tensor: ", node.dump()));
}

optim::OptimValues decode_values(const json& node, const std::map<std::string, Tensor>& tensors,
                                 const std::string& path, const char* what) {
  optim::OptimValues values;
  for (const json& item : dict_items(node, path, what)) {
    if (!item[0].is_string()) bad(path, detail::str(what, " has a key that is not a string"));
    values[item[0].get<std::string>()] = decode(item[1], tensors, path);
  }
  return values;
}

}  // namespace

void save(const optim::Optimizer& optimizer, const std::string& path) {
  optim::OptimizerStateDict sd = optimizer.state_dict();
  serialize::NamedTensors tensors;
  json state = json::array();
  for (const auto& [index, values] : sd.state)
    state.push_back({index, json{{"dict", encode_values(values, detail::str("state.", index, "."), tensors)}}});
  json groups = json::array();
  for (size_t g = 0; g < sd.param_groups.size(); ++g) {
    const auto& group = sd.param_groups[g];
    json items = encode_values(group.options, detail::str("param_groups.", g, "."), tensors);
    items.push_back({"params", json{{"list", group.params}}});
    groups.push_back(json{{"dict", items}});
  }
  json structure = {{"dict", json::array({json::array({"state", json{{"dict", state}}}),
                                          json::array({"param_groups", json{{"list", groups}}})})}};
  json meta = {{"format_version", serialize::kEmberFormatVersion}, {"structure", structure}};
  serialize::save_safetensors(path, tensors, {{serialize::kEmberMetadataKey, meta.dump()}});
}

void load(optim::Optimizer& optimizer, const std::string& path) {
  serialize::Contents contents = serialize::read_safetensors(serialize::FileSource(path));
  auto meta_it = contents.metadata.find(serialize::kEmberMetadataKey);
  if (meta_it == contents.metadata.end()) bad(path, "it has no ember structure (not written by ember.save)");
  std::map<std::string, Tensor> tensors(contents.tensors.begin(), contents.tensors.end());
  json meta = json::parse(meta_it->second, nullptr, /*allow_exceptions=*/false);
  if (meta.is_discarded() || !meta.is_object() || !meta.contains("structure")) bad(path, "its structure is not valid JSON");

  const json* state = nullptr;
  const json* groups = nullptr;
  for (const json& item : dict_items(meta["structure"], path, "the file")) {
    if (item[0] == "state") state = &item[1];
    if (item[0] == "param_groups") groups = &item[1];
  }
  if (!state || !groups) bad(path, "it lacks 'state' or 'param_groups'");

  optim::OptimizerStateDict sd;
  for (const json& item : dict_items(*state, path, "'state'")) {
    if (!item[0].is_number_integer()) bad(path, "a key of 'state' is not a parameter index");
    sd.state[item[0].get<int64_t>()] = decode_values(item[1], tensors, path, "a parameter's state");
  }
  if (!groups->is_object() || !groups->contains("list") || !(*groups)["list"].is_array())
    bad(path, "'param_groups' is not a list");
  for (const json& group_node : (*groups)["list"]) {
    optim::OptimizerStateDict::ParamGroup group;
    for (const json& item : dict_items(group_node, path, "a param group")) {
      if (!item[0].is_string()) bad(path, "a param group has a key that is not a string");
      if (item[0] == "params") {
        const json& list = item[1].is_object() && item[1].contains("list") ? item[1]["list"] : json();
        if (!list.is_array()) bad(path, "a param group's 'params' is not a list");
        for (const json& p : list) {
          if (!p.is_number_integer()) bad(path, "a param group's 'params' holds a non-index");
          group.params.push_back(p.get<int64_t>());
        }
      } else {
        group.options[item[0].get<std::string>()] = decode(item[1], tensors, path);
      }
    }
    sd.param_groups.push_back(std::move(group));
  }
  optimizer.load_state_dict(sd);
}

}  // namespace ember
