// How the caching allocator writes sizes and devices in its messages (out-of-memory
// errors, summary()).
#pragma once
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <string>

namespace ember::memory::allocator_detail {

inline std::string format_bytes(size_t n) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[48];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%zu B", n);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

// "cuda:0" -> "CUDA", for the "CUDA out of memory" wording users search for.
inline std::string device_kind(const char* name) {
  std::string kind(name);
  kind = kind.substr(0, kind.find(':'));
  for (char& c : kind) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return kind;
}

}  // namespace ember::memory::allocator_detail
