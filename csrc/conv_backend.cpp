// ember._C._set_conv_backend / _get_conv_backend / _onednn_conv_available /
// _onednn_conv_primitives_created: the switch between the CPU convolution
// backends (im2col + sgemm or oneDNN's primitives; lib/cpu/onednn_conv.h), for
// tests and benchmarks. The default is "auto" (the measured rule) unless
// EMBER_CONV_BACKEND=im2col|onednn was set when ember started.
#include "bindings.h"
#include "cpu/onednn_conv.h"

namespace ember::python {

void bind_conv_backend(py::module_& m) {
  m.def("_set_conv_backend", &cpu::onednn::set_conv_backend, py::arg("backend"));
  m.def("_get_conv_backend", &cpu::onednn::conv_backend);
  m.def("_onednn_conv_available", &cpu::onednn::onednn_available);
  m.def("_onednn_conv_primitives_created", &cpu::onednn::primitives_created);
}

}  // namespace ember::python
