// Python's side of saved-tensor hooks (ember/saved_tensor_hooks.h): the context
// managers behind ember.autograd.graph.saved_tensors_hooks and
// disable_saved_tensors_hooks, and the packed value that holds what a Python pack
// hook returned. Backward may run without the GIL (and on another thread), so
// unpacking and dropping a packed Python value take it first.
#include <memory>
#include <string>

#include "bindings.h"
#include "ember/saved_tensor_hooks.h"

namespace ember::python {

namespace {

class PyPackedTensor final : public autograd::PackedTensor {
 public:
  PyPackedTensor(py::object packed, py::object unpack) : packed_(std::move(packed)), unpack_(std::move(unpack)) {}

  ~PyPackedTensor() override {
    if (!Py_IsInitialized()) {  // the interpreter is gone: nothing to release into
      packed_.release();
      unpack_.release();
      return;
    }
    py::gil_scoped_acquire gil;
    packed_ = py::object();
    unpack_ = py::object();
  }

  Tensor unpack() const override {
    py::gil_scoped_acquire gil;
    py::object result = unpack_(packed_);
    if (!is_tensor(result))
      throw TypeError(detail::str("Output of saved tensor unpack_hook expected to be a Tensor but got "
                                  "result of type ", std::string(py::str(py::type::handle_of(result).attr("__name__")))));
    return unwrap_tensor(result);
  }

 private:
  py::object packed_;
  py::object unpack_;
};

// `with _SavedTensorsHooks(pack, unpack):` installs the pair for this thread.
class SavedTensorsHooksContext {
 public:
  SavedTensorsHooksContext(py::object pack, py::object unpack) : pack_(std::move(pack)), unpack_(std::move(unpack)) {
    if (!PyCallable_Check(pack_.ptr()) || !PyCallable_Check(unpack_.ptr()))
      throw TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callables");
  }

  void enter() {
    if (guard_) throw Error("saved_tensors_hooks: this context is already entered");
    py::object pack = pack_, unpack = unpack_;
    guard_ = std::make_unique<autograd::SavedTensorHooksGuard>(
        [pack, unpack](const Tensor& t) -> std::shared_ptr<autograd::PackedTensor> {
          py::gil_scoped_acquire gil;
          py::object packed = pack(py::cast(t));
          return std::make_shared<PyPackedTensor>(std::move(packed), unpack);
        });
  }

  void exit() { guard_.reset(); }

 private:
  py::object pack_, unpack_;
  std::unique_ptr<autograd::SavedTensorHooksGuard> guard_;
};

class DisableSavedTensorsHooksContext {
 public:
  explicit DisableSavedTensorsHooksContext(std::string message) : message_(std::move(message)) {}
  void enter() { guard_ = std::make_unique<autograd::DisableSavedTensorHooksGuard>(message_); }
  void exit() { guard_.reset(); }

 private:
  std::string message_;
  std::unique_ptr<autograd::DisableSavedTensorHooksGuard> guard_;
};

}  // namespace

void bind_saved_tensor_hooks(py::module_& m) {
  py::class_<SavedTensorsHooksContext>(m, "_SavedTensorsHooks")
      .def(py::init<py::object, py::object>(), py::arg("pack_hook"), py::arg("unpack_hook"))
      .def("__enter__", &SavedTensorsHooksContext::enter)
      .def("__exit__", [](SavedTensorsHooksContext& c, py::args) { c.exit(); });
  py::class_<DisableSavedTensorsHooksContext>(m, "_DisableSavedTensorsHooks")
      .def(py::init<std::string>(), py::arg("error_message"))
      .def("__enter__", &DisableSavedTensorsHooksContext::enter)
      .def("__exit__", [](DisableSavedTensorsHooksContext& c, py::args) { c.exit(); });
}

}  // namespace ember::python
