// ember.autocast's C++ half: the per-thread autocast state (include/ember/autocast.h),
// under torch's names (torch.is_autocast_enabled, torch.set_autocast_dtype, ...).
// python/ember/amp/autocast_mode.py builds the context manager on these.
#include "bindings.h"
#include "ember/autocast.h"

namespace ember::python {

namespace {

// "cpu" or "cuda"; the Python side has refused other names with torch's messages.
DeviceType autocast_device(const std::string& name) {
  if (name == "cpu") return DeviceType::CPU;
  if (name == "cuda") return DeviceType::CUDA;
  throw Error(detail::str("ember autocast: no autocast for device type '", name,
                          "' (ember has cpu and cuda)"));
}

}  // namespace

void bind_autocast(py::module_& m) {
  m.def("_autocast_is_enabled", [](const std::string& d) { return autocast::is_enabled(autocast_device(d)); });
  m.def("_autocast_set_enabled", [](const std::string& d, bool on) { autocast::set_enabled(autocast_device(d), on); });
  m.def("_autocast_get_dtype", [](const std::string& d) { return autocast::get_dtype(autocast_device(d)); });
  m.def("_autocast_set_dtype", [](const std::string& d, DType t) { autocast::set_dtype(autocast_device(d), t); });
  m.def("is_autocast_cache_enabled", &autocast::is_cache_enabled);
  m.def("set_autocast_cache_enabled", &autocast::set_cache_enabled, py::arg("enabled"));
  m.def("autocast_increment_nesting", &autocast::increment_nesting);
  m.def("autocast_decrement_nesting", &autocast::decrement_nesting);
  m.def("clear_autocast_cache", &autocast::clear_cache);
  m.def("_autocast_cache_size", &autocast::cache_size);
}

}  // namespace ember::python
