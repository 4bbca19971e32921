// ember._C's op profiler bindings (python/ember/profiler/ builds PyTorch's API on them).
#include "bindings.h"
#include "ember/profiler.h"

namespace ember::python {

void bind_profiler(py::module_& m) {
  namespace prof = ember::profiler;
  m.def(
      "_profiler_start",
      [](bool record_shapes, bool profile_memory) {
        prof::ProfilerConfig config;
        config.record_shapes = record_shapes;
        config.profile_memory = profile_memory;
        prof::start(config);
      },
      py::arg("record_shapes") = false, py::arg("profile_memory") = false);
  // The events as tuples: (name, kind, id, parent_id, depth, start_ns, end_ns, thread_id,
  // device, input_shapes, cpu_memory_bytes, device_memory_bytes); kind 0 op, 1 backward
  // node, 2 user range.
  m.def("_profiler_stop", [] {
    std::vector<prof::Event> events;
    {
      py::gil_scoped_release no_gil;  // another thread may be recording under the GIL's wait
      events = prof::stop();
    }
    py::list out;
    for (prof::Event& e : events)
      out.append(py::make_tuple(e.name, static_cast<int>(e.kind), e.id, e.parent_id, e.depth,
                                e.start_ns, e.end_ns, e.thread_id, e.device, e.input_shapes,
                                e.cpu_memory_bytes, e.device_memory_bytes));
    return out;
  });
  m.def("_profiler_enabled", &prof::is_enabled);
  py::class_<prof::RecordFunction>(m, "_RecordFunction")
      .def(py::init<const std::string&>(), py::arg("name"))
      .def("end", &prof::RecordFunction::end);
}

}  // namespace ember::python
