// parse_strict_json (strict_json.h).
#include "serialize/strict_json.h"

#include <cstdio>
#include <set>
#include <vector>

#include "ember/error.h"

namespace ember::serialize {

std::string printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

std::string excerpt(const Json& j, size_t max_chars) {
  std::string text = j.dump();
  if (text.size() <= max_chars) return printable(text);
  return printable(text.substr(0, max_chars)) + "...";
}

Json parse_strict_json(std::string_view text, const JsonLimits& limits, const std::string& context,
                       const std::string& subject) {
  auto fail = [&](const auto&... what) {
    throw Error(detail::str(context, ": ", subject, " ", what...));
  };
  std::vector<std::set<std::string>> keys_of_open_objects;
  size_t elements = 0;
  auto check = [&](int depth, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        keys_of_open_objects.emplace_back();
        [[fallthrough]];
      case Json::parse_event_t::array_start:
        if (depth > limits.max_depth) fail("nests objects or arrays too deeply");
        break;
      case Json::parse_event_t::object_end:
        keys_of_open_objects.pop_back();
        break;
      case Json::parse_event_t::key: {
        const auto& key = parsed.get_ref<const std::string&>();
        if (!keys_of_open_objects.back().insert(key).second)
          fail("has the key '", printable(key), "' twice in one object");
        break;
      }
      default:
        break;
    }
    // Every element ends with one value, object_end or array_end event.
    if (event == Json::parse_event_t::value || event == Json::parse_event_t::object_end ||
        event == Json::parse_event_t::array_end) {
      if (++elements > limits.max_elements)
        fail("has more than ", limits.max_elements, " elements");
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), check);
  } catch (const Json::exception& e) {
    fail("is not valid JSON (", printable(e.what()), ")");
  }
  return Json();  // not reached: fail throws
}

}  // namespace ember::serialize
