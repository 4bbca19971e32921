// Python bindings of autograd's debugging aids: anomaly mode (the switch, the
// Python stack of each recorded forward call, the UserWarning on a failed node)
// and Tensor.register_post_accumulate_grad_hook.
#include <string>

#include "bindings.h"
#include "ember/anomaly_mode.h"
#include "ember/autograd_hooks.h"

namespace ember::python {
namespace {

// The Python stack of the op being recorded, as traceback.format_stack() gives it.
std::string python_forward_trace() {
  if (!Py_IsInitialized()) return {};
  py::gil_scoped_acquire gil;
  try {
    py::list frames = py::module_::import("traceback").attr("format_stack")();
    std::string out;
    for (py::handle f : frames) out += py::str(f).cast<std::string>();
    return out;
  } catch (py::error_already_set&) {
    return {};
  }
}

// PyTorch's UserWarning, issued before the node's error propagates.
void warn_backward_error(const std::string& node_name, const std::string& trace) {
  if (!Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  std::string message = "Error detected in " + node_name +
                        ". Traceback of forward call that caused the error:\n" + trace;
  // With warnings turned into errors the warning cannot be raised from here (the
  // node's own error is on its way); it is dropped rather than replacing that error.
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) PyErr_Clear();
}

}  // namespace

void bind_autograd_debug(py::module_& m) {
  autograd::set_forward_trace_provider(&python_forward_trace);
  autograd::set_anomaly_reporter(&warn_backward_error);
  m.def("_set_anomaly_enabled", &autograd::set_anomaly_enabled, py::arg("enabled"),
        py::arg("check_nan") = true);
  m.def("_is_anomaly_enabled", &autograd::is_anomaly_enabled);
  m.def("_is_anomaly_check_nan_enabled", &autograd::is_anomaly_check_nan_enabled);
  m.def("_register_post_accumulate_grad_hook", [](const Tensor& leaf, py::function hook) {
    return autograd::register_post_accumulate_grad_hook(leaf, [hook](const Tensor& t) {
      py::gil_scoped_acquire gil;
      py::object r = hook(t);
      if (!r.is_none())
        throw TypeError("register_post_accumulate_grad_hook: a post accumulate grad hook must "
                        "return None, but it returned '" +
                        py::str(py::type::handle_of(r).attr("__name__")).cast<std::string>() + "'");
    });
  });
  m.def("_remove_post_accumulate_grad_hook", &autograd::remove_post_accumulate_grad_hook);
}

}  // namespace ember::python
