// ember.memory_stats() and friends.
#include "bindings.h"

namespace ember::python {

void bind_memory(py::module_& m) {
  m.def("memory_stats", [](const Device& d) {
    MemoryStats s = memory_stats(d);
    py::dict out;
    out["allocated_bytes"] = s.allocated_bytes;
    out["reserved_bytes"] = s.reserved_bytes;
    out["peak_allocated_bytes"] = s.peak_allocated_bytes;
    out["peak_reserved_bytes"] = s.peak_reserved_bytes;
    out["num_allocs"] = s.num_allocs;
    out["num_frees"] = s.num_frees;
    out["num_raw_allocs"] = s.num_raw_allocs;
    out["num_raw_frees"] = s.num_raw_frees;
    out["num_cache_hits"] = s.num_cache_hits;
    out["num_ooms"] = s.num_ooms;
    return out;
  }, py::arg("device") = Device(kCPU));
  m.def("reset_peak_memory_stats", [](const Device& d) { reset_peak_memory_stats(d); },
        py::arg("device") = Device(kCPU));
  m.def("empty_cache", [](const Device& d) { empty_cache(d); }, py::arg("device") = Device(kCPU));
}

}  // namespace ember::python
