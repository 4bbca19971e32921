// ember.memory_stats() and friends, and the memory budget (ember.memory).
#include "bindings.h"
#include "ember/memory_budget.h"

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
    out["active_allocs"] = s.active_allocs;
    out["segments"] = s.segments;
    // The memory budget's rematerialization (ember.memory.set_budget).
    memory::RematStats r = memory::remat_stats(d);
    out["num_evictions"] = r.evictions;
    out["evicted_bytes"] = r.evicted_bytes;
    out["num_recomputations"] = r.recomputations;
    out["recompute_seconds"] = r.recompute_seconds;
    out["rematerializable_tensors"] = r.tracked_tensors;
    out["evicted_tensors"] = r.evicted_now;
    return out;
  }, py::arg("device") = Device(kCPU));
  m.def("reset_accumulated_memory_stats", [](const Device& d) {
    reset_accumulated_memory_stats(d);
    memory::reset_remat_stats(d);
  }, py::arg("device") = Device(kCPU));
  m.def("_set_memory_budget", [](std::optional<int64_t> bytes, const Device& d) {
    memory::set_budget(bytes, d);
  }, py::arg("bytes"), py::arg("device") = Device(kCPU));
  m.def("_get_memory_budget", [](const Device& d) { return memory::get_budget(d); },
        py::arg("device") = Device(kCPU));
  // The segments as torch.cuda.memory_snapshot() lists them (a dict per segment).
  m.def("memory_snapshot", [](const Device& d) {
    py::list out;
    for (const MemorySegment& seg : memory_snapshot(d)) {
      py::dict s;
      s["device"] = d.is_cuda() ? d.index : 0;
      s["address"] = seg.address;
      s["total_size"] = seg.total_size;
      s["allocated_size"] = seg.allocated_size;
      s["active_size"] = seg.active_size;
      s["requested_size"] = seg.requested_size;
      s["stream"] = seg.stream;
      s["segment_type"] = seg.is_small ? "small" : "large";
      s["segment_pool_id"] = py::make_tuple(seg.pool_id, 0);
      s["is_expandable"] = false;
      s["frames"] = py::list();
      py::list blocks;
      for (const MemoryBlock& b : seg.blocks) {
        py::dict block;
        block["address"] = b.address;
        block["size"] = b.size;
        block["requested_size"] = b.requested_size;
        block["state"] = b.state;
        block["frames"] = py::list();
        blocks.append(block);
      }
      s["blocks"] = blocks;
      out.append(s);
    }
    return out;
  }, py::arg("device") = Device(kCPU));
  m.def("reset_peak_memory_stats", [](const Device& d) { reset_peak_memory_stats(d); },
        py::arg("device") = Device(kCPU));
  m.def("empty_cache", [](const Device& d) { empty_cache(d); }, py::arg("device") = Device(kCPU));
}

}  // namespace ember::python
