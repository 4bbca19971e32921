// parse_allocator_settings (caching_allocator.h): PyTorch's PYTORCH_CUDA_ALLOC_CONF syntax.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "ember/error.h"
#include "memory/caching_allocator.h"

namespace ember::memory {

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

double parse_number(const std::string& key, const std::string& value) {
  char* end = nullptr;
  double v = std::strtod(value.c_str(), &end);
  EMBER_CHECK_VALUE(!value.empty() && end == value.c_str() + value.size(), "allocator settings: ",
                    key, " expects a number, got '", value, "'");
  return v;
}

}  // namespace

AllocatorSettings parse_allocator_settings(const std::string& conf, AllocatorSettings base,
                                           std::vector<std::string>* ignored) {
  // PyTorch options that ember's allocator does not implement: accepted, reported.
  static const char* const kNotImplemented[] = {
      "expandable_segments", "roundup_power2_divisions", "pinned_use_cuda_host_register",
      "pinned_num_register_threads", "release_lock_on_cudamalloc", "backend",
      "pinned_use_background_threads", "per_process_memory_fraction", "graph_capture_record_stream_reuse"};
  size_t start = 0;
  while (start <= conf.size()) {
    size_t end = conf.find(',', start);
    if (end == std::string::npos) end = conf.size();
    std::string item = trim(conf.substr(start, end - start));
    start = end + 1;
    if (item.empty()) continue;
    size_t colon = item.find(':');
    EMBER_CHECK_VALUE(colon != std::string::npos, "allocator settings: expected key:value, got '",
                      item, "'");
    std::string key = trim(item.substr(0, colon)), value = trim(item.substr(colon + 1));
    if (key == "max_split_size_mb") {
      double mb = parse_number(key, value);
      EMBER_CHECK_VALUE(mb > 1.0, "allocator settings: max_split_size_mb must be more than 1, got ", value);
      base.max_split_size = mb >= static_cast<double>(SIZE_MAX >> 20)
                                ? SIZE_MAX : static_cast<size_t>(mb * 1024.0 * 1024.0);
    } else if (key == "garbage_collection_threshold") {
      double t = parse_number(key, value);
      EMBER_CHECK_VALUE(t > 0.0 && t < 1.0, "allocator settings: garbage_collection_threshold must "
                        "lie in (0, 1), got ", value);
      base.garbage_collection_threshold = t;
    } else if (std::find(std::begin(kNotImplemented), std::end(kNotImplemented), key) !=
               std::end(kNotImplemented)) {
      if (ignored) ignored->push_back(key);
    } else {
      throw ValueError(detail::str("allocator settings: unrecognized option '", key,
                                   "' (ember knows max_split_size_mb and garbage_collection_threshold)"));
    }
  }
  return base;
}

}  // namespace ember::memory
