// Parsing JSON from untrusted files (safetensors headers, model graphs) with the
// limits nlohmann does not enforce by itself.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ember::serialize {

using Json = nlohmann::ordered_json;  // keeps the order of keys as written

struct JsonLimits {
  // Objects and arrays may start at depths 0 (the root) to max_depth.
  int max_depth;
  // The most values (numbers, strings, objects, arrays, ...) the text may hold:
  // bounds the memory the parsed tree takes, whatever the text's shape.
  size_t max_elements;
};

// Parses `text`, refusing what nlohmann would otherwise accept quietly: a key
// twice in one object (it keeps the last), nesting deeper than the limit (the
// parsed tree's destructor is recursive), more elements than the limit. Every
// problem throws ember::Error "<context>: <subject> <problem>", e.g.
// "cannot load 'x' as safetensors: the header is not valid JSON (...)".
Json parse_strict_json(std::string_view text, const JsonLimits& limits, const std::string& context,
                       const std::string& subject);

// `text` with every byte that is not printable ASCII written as \xNN: nlohmann's
// messages quote the bytes they read, which may not be UTF-8 (or text), and
// error messages must be (Python decodes them as UTF-8).
std::string printable(std::string_view text);

// A JSON value as an error message quotes it: printable, and cut after
// max_chars (a hostile file's value may be megabytes long).
std::string excerpt(const Json& j, size_t max_chars = 80);

}  // namespace ember::serialize
