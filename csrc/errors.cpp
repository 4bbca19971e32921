// ember's C++ exceptions become the Python built-ins PyTorch raises for the same mistake.
#include "bindings.h"

namespace ember::python {

void bind_errors(py::module_& m) {
  static py::exception<OutOfMemoryError> oom(m, "OutOfMemoryError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const OutOfMemoryError& e) {
      PyErr_SetString(oom.ptr(), e.what());
    } catch (const IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const AssertionError& e) {
      PyErr_SetString(PyExc_AssertionError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const py::cast_error& e) {
      // An argument pybind11 could not convert (a str where a dtype or an int was
      // expected): torch's argument parser raises TypeError for the same call.
      PyErr_SetString(PyExc_TypeError, e.what());
    }
  });
}

}  // namespace ember::python
