// ember._C._cuda (devices, streams, events, CUDA memory; python/ember/cuda/ builds
// ember.cuda on it) and the Tensor methods cuda(), pin_memory(), is_pinned(),
// record_stream().
#include "bindings.h"
#include "core/cuda_launch_blocking.h"

namespace ember::python {

namespace {

using cuda::Event;
using cuda::Stream;

// None, an int, "cuda:1" or an ember.device: a CUDA device index (-1: the current one).
int cuda_index_from(py::handle obj) {
  if (obj.is_none()) return -1;
  if (py::isinstance<py::int_>(obj)) return obj.cast<int>();
  Device d = device_from(obj);
  EMBER_CHECK_VALUE(d.is_cuda(), "expected a CUDA device, got ", d.str());
  return d.index;
}

// Waiting for the GPU lets other Python threads run.
using release_gil = py::call_guard<py::gil_scoped_release>;

void bind_streams(py::module_& c) {
  py::class_<Stream>(c, "Stream")
      .def(py::init([](py::handle device, int priority) {
             return Stream::create(cuda_index_from(device), priority);
           }),
           py::arg("device") = py::none(), py::arg("priority") = 0)
      // ember.cuda.ExternalStream: a cudaStream_t made elsewhere, used as it is.
      .def(py::init([](uintptr_t stream_ptr, py::handle device, bool) {
             EMBER_CHECK(cuda::is_available(), "ExternalStream: ",
                         cuda::is_built() ? "no CUDA GPU is available" : "ember was built without CUDA");
             int index = cuda_index_from(device);
             if (index < 0) index = cuda::current_device();
             EMBER_CHECK_VALUE(index < cuda::device_count(), "ExternalStream: invalid CUDA device index ",
                               index, " (", cuda::device_count(), " available)");
             return Stream::wrap(index, reinterpret_cast<void*>(stream_ptr));
           }),
           py::arg("stream_ptr"), py::arg("device"), py::arg("_external"))
      .def_property_readonly("device_index", &Stream::device)
      .def_property_readonly("device", [](const Stream& s) { return Device(DeviceType::CUDA, s.device()); })
      .def_property_readonly("cuda_stream", &Stream::id)
      .def_property_readonly("priority", &Stream::priority)
      .def("query", &Stream::query)
      .def("synchronize", &Stream::synchronize, release_gil())
      .def("wait_stream", &Stream::wait_stream, py::arg("stream"))
      .def("wait_event", [](const Stream& s, const Event& e) { e.wait(s); }, py::arg("event"))
      .def("record_event", [](const Stream& s, const Event* e) {
        Event event = e ? *e : Event();  // a copy shares the event
        event.record(s);
        return event;
      }, py::arg("event") = nullptr)
      .def("__eq__", [](const Stream& a, const Stream& b) { return a == b; })
      .def("__hash__", [](const Stream& s) { return std::hash<uintptr_t>()(s.id()) ^ s.device(); })
      .def("__repr__", [](const Stream& s) {
        return detail::str("<ember.cuda.Stream device=cuda:", s.device(), " cuda_stream=0x",
                           std::hex, s.id(), ">");
      });
  c.def("current_stream", [](py::handle d) { return cuda::current_stream(cuda_index_from(d)); },
        py::arg("device") = py::none());
  c.def("default_stream", [](py::handle d) { return cuda::default_stream(cuda_index_from(d)); },
        py::arg("device") = py::none());
  c.def("set_stream", &cuda::set_current_stream, py::arg("stream"));

  py::class_<Event>(c, "Event")
      .def(py::init<bool, bool>(), py::arg("enable_timing") = false, py::arg("blocking") = false)
      .def("record", [](Event& e, const Stream* s) { s ? e.record(*s) : e.record(); },
           py::arg("stream") = nullptr)
      .def("wait", [](const Event& e, const Stream* s) { s ? e.wait(*s) : e.wait(); },
           py::arg("stream") = nullptr)
      .def("query", &Event::query)
      .def("synchronize", &Event::synchronize, release_gil())
      .def("elapsed_time", &Event::elapsed_time, py::arg("end_event"));
}

void bind_device_properties(py::module_& c) {
  using cuda::DeviceProperties;
  py::class_<DeviceProperties>(c, "_CudaDeviceProperties")
      .def_readonly("name", &DeviceProperties::name)
      .def_readonly("major", &DeviceProperties::major)
      .def_readonly("minor", &DeviceProperties::minor)
      .def_readonly("total_memory", &DeviceProperties::total_memory)
      .def_readonly("multi_processor_count", &DeviceProperties::multi_processor_count)
      .def_readonly("max_threads_per_multi_processor",
                    &DeviceProperties::max_threads_per_multi_processor)
      .def_readonly("warp_size", &DeviceProperties::warp_size)
      .def_readonly("L2_cache_size", &DeviceProperties::L2_cache_size)
      .def_readonly("is_integrated", &DeviceProperties::is_integrated)
      .def_readonly("is_multi_gpu_board", &DeviceProperties::is_multi_gpu_board)
      .def_readonly("uuid", &DeviceProperties::uuid)
      .def_readonly("pci_bus_id", &DeviceProperties::pci_bus_id)
      .def_readonly("pci_device_id", &DeviceProperties::pci_device_id)
      .def_readonly("pci_domain_id", &DeviceProperties::pci_domain_id)
      .def("__repr__", [](const DeviceProperties& p) {
        return ::ember::detail::str(
            "_CudaDeviceProperties(name='", p.name, "', major=", p.major, ", minor=", p.minor,
            ", total_memory=", p.total_memory / (1024 * 1024), "MB, multi_processor_count=",
            p.multi_processor_count, ", uuid=", p.uuid, ", pci_bus_id=", p.pci_bus_id,
            ", pci_device_id=", p.pci_device_id, ", pci_domain_id=", p.pci_domain_id,
            ", L2_cache_size=", p.L2_cache_size / (1024 * 1024), "MB)");
      });
  c.def("get_device_properties", &cuda::get_device_properties, py::arg("device") = -1);
  c.def("mem_get_info", &cuda::mem_get_info, py::arg("device") = -1);
}

void bind_graphs(py::module_& c) {
  using cuda::CUDAGraph;
  using cuda::MempoolId;
  py::class_<CUDAGraph>(c, "_CUDAGraph")
      .def(py::init<bool>(), py::arg("keep_graph") = false)
      .def("capture_begin", [](CUDAGraph& g, std::optional<MempoolId> pool,
                               const std::string& mode) {
             g.capture_begin(pool.value_or(MempoolId{0, 0}), mode);
           },
           py::arg("pool") = py::none(), py::arg("capture_error_mode") = "global")
      .def("capture_end", &CUDAGraph::capture_end)
      .def("replay", &CUDAGraph::replay)
      .def("reset", &CUDAGraph::reset)
      .def("pool", &CUDAGraph::pool)
      .def("enable_debug_mode", &CUDAGraph::enable_debug_mode)
      .def("debug_dump", &CUDAGraph::debug_dump, py::arg("debug_path"));
  c.def("graph_pool_handle", &cuda::graph_pool_handle);
  c.def("is_current_stream_capturing", &cuda::is_current_stream_capturing);
}

void bind_tensor_device_methods(TensorClass& cls) {
  cls.def("cuda", [](const Tensor& t, py::handle device, bool non_blocking) {
        return t.cuda(cuda_index_from(device), non_blocking);
      }, py::arg("device") = py::none(), py::arg("non_blocking") = false)
      .def("pin_memory", &Tensor::pin_memory)
      .def("is_pinned", &Tensor::is_pinned)
      .def("record_stream", &Tensor::record_stream, py::arg("stream"));
}

}  // namespace

void bind_cuda(py::module_& m, TensorClass& cls) {
  py::module_ c = m.def_submodule("_cuda", "ember::cuda: CUDA devices, streams, events, memory");
  c.def("is_built", &cuda::is_built);
  // The toolkit the build compiled against ("12.4"), or None (ember.version.cuda).
#ifdef EMBER_CUDA_VERSION
  c.attr("toolkit_version") = EMBER_CUDA_VERSION;
#else
  c.attr("toolkit_version") = py::none();
#endif
  c.def("is_available", &cuda::is_available);
  c.def("device_count", &cuda::device_count);
  c.def("current_device", &cuda::current_device);
  c.def("set_device", [](py::handle d) { cuda::set_device(cuda_index_from(d)); }, py::arg("device"));
  c.def("synchronize", [](int d) { cuda::synchronize(d); }, py::arg("device") = -1, release_gil());
  c.def("memory_summary", &cuda::memory_summary, py::arg("device") = -1);
  bind_device_properties(c);
  c.def("empty_cache", &cuda::empty_cache);
  c.def("reset_accumulated_memory_stats", &cuda::reset_accumulated_memory_stats,
        py::arg("device") = -1);
  c.def("set_per_process_memory_fraction", &cuda::set_per_process_memory_fraction,
        py::arg("fraction"), py::arg("device") = -1);
  c.def("get_per_process_memory_fraction", &cuda::get_per_process_memory_fraction,
        py::arg("device") = -1);
  c.def("get_arch_list", &cuda::get_arch_list);
  // The synchronizing debug mode (lib/core/cuda_launch_blocking.h).
  c.def("_set_launch_blocking", &cuda::set_launch_blocking, py::arg("on"));
  c.def("_launch_blocking", &cuda::launch_blocking);
  c.def("can_device_access_peer", &cuda::can_device_access_peer, py::arg("device"),
        py::arg("peer"));
  bind_streams(c);
  bind_graphs(c);
  bind_tensor_device_methods(cls);
}

}  // namespace ember::python
