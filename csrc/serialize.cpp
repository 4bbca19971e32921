// The C++ half of ember.save / ember.load: safetensors files to and from (name,
// tensor) lists and a metadata dict. python/ember/serialization.py turns nested
// Python objects into those lists and back.
#include "bindings.h"
#include "serialize/safetensors.h"

namespace ember::python {

namespace {

using serialize::Contents;
using serialize::Metadata;
using serialize::NamedTensors;

py::tuple to_python(Contents&& contents) {
  py::list tensors;
  for (auto& [name, t] : contents.tensors) tensors.append(py::make_tuple(name, std::move(t)));
  return py::make_tuple(tensors, py::cast(contents.metadata));
}

}  // namespace

void bind_serialize(py::module_& m) {
  m.attr("_SERIALIZATION_KEY") = serialize::kEmberMetadataKey;
  m.attr("_SERIALIZATION_VERSION") = serialize::kEmberFormatVersion;
  m.def("_save_safetensors", &serialize::save_safetensors, py::arg("path"), py::arg("tensors"),
        py::arg("metadata"), py::call_guard<py::gil_scoped_release>(),
        "Writes a safetensors file atomically.");
  m.def(
      "_write_safetensors",
      [](const NamedTensors& tensors, const Metadata& metadata, const py::function& write) {
        // bytes, not a view of ember's memory: write() may keep what it is given.
        serialize::write_safetensors(tensors, metadata, [&](const void* p, size_t n) {
          write(py::bytes(static_cast<const char*>(p), n));
        });
      },
      py::arg("tensors"), py::arg("metadata"), py::arg("write"),
      "Streams a safetensors file to write(bytes), a chunk at a time.");
  m.def(
      "_read_safetensors_fd",
      [](int fd, const std::string& name) {
        Contents contents;
        {
          py::gil_scoped_release release;
          contents = serialize::read_safetensors(serialize::FileSource(fd, name));
        }
        return to_python(std::move(contents));
      },
      py::arg("fd"), py::arg("name"),
      "Reads the safetensors file open as fd: ([(name, tensor)], metadata).");
  m.def(
      "_read_safetensors_bytes",
      [](const py::bytes& data, const std::string& name) {
        std::string_view bytes(PyBytes_AS_STRING(data.ptr()), PyBytes_GET_SIZE(data.ptr()));
        Contents contents;
        {
          py::gil_scoped_release release;  // `data` is immutable and stays referenced
          contents = serialize::read_safetensors(serialize::MemorySource(bytes, name));
        }
        return to_python(std::move(contents));
      },
      py::arg("data"), py::arg("name"),
      "Reads a safetensors file held in bytes: ([(name, tensor)], metadata).");
}

}  // namespace ember::python
