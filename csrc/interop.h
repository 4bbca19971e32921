// Pieces shared by the interop bindings (interop.cpp registers them):
// ember.Size, numpy and DLPack exchange, and ember.tensor from Python data.
#pragma once
#include <optional>

#include "bindings.h"
#include "ember/ops/external.h"

namespace ember::python {

// ember.Size (size.cpp).
void bind_size(py::module_& m);
py::object make_size(const DimVector& dims);

// numpy (numpy_interop.cpp).
Tensor tensor_from_numpy(py::handle array);   // zero-copy; keeps the array alive
py::object tensor_to_numpy(py::handle self, bool force);  // zero-copy on CPU
py::object tensor_array(py::handle self, py::handle dtype, py::handle copy);  // __array__
py::object tensor_tolist(const Tensor& t);
bool is_numpy_array(py::handle obj);
bool is_numpy_scalar(py::handle obj);

// DLPack (dlpack.cpp).
py::capsule tensor_to_dlpack(const Tensor& t, py::handle max_version, py::handle dl_device,
                             py::handle copy);
py::tuple tensor_dlpack_device(const Tensor& t);
// Tensor.__dlpack__(stream=...)'s handshake: the consumer's stream waits for ember's work
// on a CUDA tensor (a CPU tensor takes stream None or -1 only).
void make_consumer_stream_wait(const Tensor& t, py::handle stream);
Tensor tensor_from_dlpack(py::handle obj);

// ember.tensor / ember.as_tensor (tensor_new.cpp). device: None, a str or an ember.device.
std::optional<Device> device_arg(py::handle device);
Tensor tensor_from_data(py::handle data, std::optional<DType> dtype, std::optional<Device> device,
                        bool requires_grad);
Tensor as_tensor(py::handle data, std::optional<DType> dtype, std::optional<Device> device);


}  // namespace ember::python
