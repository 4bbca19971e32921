// ember._C._distributed: the stores, process groups and work handles of
// ember::distributed (python/ember/distributed/ builds torch.distributed's API on
// them). Every call that can block releases the GIL.
#include <pybind11/chrono.h>

#include "bindings.h"
#include "ember/distributed.h"

namespace ember::python {

namespace dist = ember::distributed;

namespace {

// A store value: bytes, or a str (encoded as UTF-8), as torch's stores accept.
dist::Bytes value_from(const py::handle& value, const char* op, const char* what) {
  if (PyBytes_Check(value.ptr())) {
    std::string s = value.cast<std::string>();
    return dist::Bytes(s.begin(), s.end());
  }
  if (PyByteArray_Check(value.ptr())) {
    std::string s = py::bytes(value.cast<py::bytearray>()).cast<std::string>();
    return dist::Bytes(s.begin(), s.end());
  }
  if (PyUnicode_Check(value.ptr())) return dist::to_bytes(value.cast<std::string>());
  throw TypeError(std::string(op) + "(): " + what + " must be str or bytes, not " +
                  std::string(py::str(py::type::handle_of(value).attr("__name__"))));
}

py::bytes as_bytes(const dist::Bytes& b) {
  return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}

dist::Milliseconds timeout_from(const py::handle& timeout, dist::Milliseconds fallback) {
  if (timeout.is_none()) return fallback;
  return timeout.cast<dist::Milliseconds>();
}

using StorePtr = std::shared_ptr<dist::Store>;

void bind_stores(py::module_& m) {
  using release = py::call_guard<py::gil_scoped_release>;
  py::class_<dist::Store, StorePtr>(m, "Store")
      .def("set", [](dist::Store& s, const std::string& key, py::handle value) {
        dist::Bytes bytes = value_from(value, "set", "value");
        py::gil_scoped_release no_gil;
        s.set(key, bytes);
      }, py::arg("key"), py::arg("value"))
      .def("get", [](dist::Store& s, const std::string& key) {
        dist::Bytes value;
        {
          py::gil_scoped_release no_gil;
          value = s.get(key);
        }
        return as_bytes(value);
      }, py::arg("key"))
      .def("add", &dist::Store::add, py::arg("key"), py::arg("value"), release())
      .def("compare_set", [](dist::Store& s, const std::string& key, py::handle expected,
                             py::handle desired) {
        dist::Bytes e = value_from(expected, "compare_set", "expected_value");
        dist::Bytes d = value_from(desired, "compare_set", "desired_value");
        dist::Bytes out;
        {
          py::gil_scoped_release no_gil;
          out = s.compare_set(key, e, d);
        }
        return as_bytes(out);
      }, py::arg("key"), py::arg("expected_value"), py::arg("desired_value"))
      .def("delete_key", &dist::Store::delete_key, py::arg("key"), release())
      .def("check", &dist::Store::check, py::arg("keys"), release())
      .def("num_keys", &dist::Store::num_keys, release())
      .def("wait", [](dist::Store& s, const std::vector<std::string>& keys, py::handle timeout) {
        dist::Milliseconds t = timeout_from(timeout, s.timeout());
        py::gil_scoped_release no_gil;
        s.wait(keys, t);
      }, py::arg("keys"), py::arg("timeout") = py::none())
      .def("append", [](dist::Store& s, const std::string& key, py::handle value) {
        dist::Bytes bytes = value_from(value, "append", "value");
        py::gil_scoped_release no_gil;
        s.append(key, bytes);
      }, py::arg("key"), py::arg("value"))
      .def("multi_get", [](dist::Store& s, const std::vector<std::string>& keys) {
        std::vector<dist::Bytes> values;
        {
          py::gil_scoped_release no_gil;
          values = s.multi_get(keys);
        }
        py::list out;
        for (const auto& v : values) out.append(as_bytes(v));
        return out;
      }, py::arg("keys"))
      .def("multi_set", [](dist::Store& s, const std::vector<std::string>& keys, py::list values) {
        std::vector<dist::Bytes> bytes;
        for (auto v : values) bytes.push_back(value_from(v, "multi_set", "every value"));
        py::gil_scoped_release no_gil;
        s.multi_set(keys, bytes);
      }, py::arg("keys"), py::arg("values"))
      .def("set_timeout", &dist::Store::set_timeout, py::arg("timeout"))
      .def_property_readonly("timeout", &dist::Store::timeout);

  py::class_<dist::HashStore, dist::Store, std::shared_ptr<dist::HashStore>>(m, "HashStore")
      .def(py::init<>());

  py::class_<dist::FileStore, dist::Store, std::shared_ptr<dist::FileStore>>(m, "FileStore")
      .def(py::init([](const std::string& file_name, int world_size) {
             return std::make_shared<dist::FileStore>(file_name, world_size);
           }), py::arg("file_name"), py::arg("world_size") = -1, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("path", &dist::FileStore::path);

  py::class_<dist::TCPStore, dist::Store, std::shared_ptr<dist::TCPStore>>(m, "TCPStore")
      .def(py::init([](const std::string& host_name, int port, py::handle world_size, bool is_master,
                       py::handle timeout, bool wait_for_workers) {
             EMBER_CHECK_VALUE(port >= 0 && port <= 65535, "TCPStore: port ", port,
                               " is out of range (0..65535)");
             dist::TCPStoreOptions options;
             options.port = static_cast<uint16_t>(port);
             options.is_master = is_master;
             options.world_size = world_size.is_none() ? -1 : world_size.cast<int>();
             options.wait_for_workers = wait_for_workers;
             options.timeout = timeout_from(timeout, dist::kDefaultStoreTimeout);
             py::gil_scoped_release no_gil;
             return std::make_shared<dist::TCPStore>(host_name, options);
           }), py::arg("host_name"), py::arg("port"), py::arg("world_size") = py::none(),
           py::arg("is_master") = false, py::arg("timeout") = py::none(),
           py::arg("wait_for_workers") = true)
      .def_property_readonly("host", &dist::TCPStore::host)
      .def_property_readonly("port", &dist::TCPStore::port);

  py::class_<dist::PrefixStore, dist::Store, std::shared_ptr<dist::PrefixStore>>(m, "PrefixStore")
      .def(py::init<std::string, StorePtr>(), py::arg("prefix"), py::arg("store"))
      .def_property_readonly("underlying_store", &dist::PrefixStore::underlying_store)
      .def_property_readonly("prefix", &dist::PrefixStore::prefix);
}

void bind_work(py::module_& m) {
  py::class_<dist::Work, dist::WorkPtr>(m, "Work")
      .def("wait", [](dist::Work& w, py::handle timeout) {
        dist::Milliseconds t = timeout_from(timeout, dist::Milliseconds::zero());
        py::gil_scoped_release no_gil;
        return w.wait(t);
      }, py::arg("timeout") = py::none())
      .def("is_completed", &dist::Work::is_completed)
      .def("is_success", &dist::Work::is_success)
      .def("exception", [](dist::Work& w) -> py::object {
        std::exception_ptr e = w.exception();
        if (!e) return py::none();
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          return py::str(ex.what());
        }
      })
      .def("result", &dist::Work::result)
      .def("_source_rank", &dist::Work::source_rank)
      .def("__repr__", [](const dist::Work& w) {
        return "<ember.distributed.Work " + w.op_name() +
               (w.is_completed() ? (w.is_success() ? " completed>" : " failed>") : " running>");
      });
}

void bind_process_group(py::module_& m) {
  py::enum_<dist::ReduceOp>(m, "ReduceOp")
      .value("SUM", dist::ReduceOp::SUM)
      .value("AVG", dist::ReduceOp::AVG)
      .value("PRODUCT", dist::ReduceOp::PRODUCT)
      .value("MIN", dist::ReduceOp::MIN)
      .value("MAX", dist::ReduceOp::MAX)
      .value("BAND", dist::ReduceOp::BAND)
      .value("BOR", dist::ReduceOp::BOR)
      .value("BXOR", dist::ReduceOp::BXOR);

  using release = py::call_guard<py::gil_scoped_release>;
  using PG = dist::ProcessGroup;
  py::class_<PG, dist::ProcessGroupPtr>(m, "ProcessGroup")
      .def("rank", &PG::rank)
      .def("size", &PG::size)
      .def("name", &PG::backend_name)
      .def("all_reduce", &PG::all_reduce, py::arg("tensor"), py::arg("op"), release())
      .def("broadcast", &PG::broadcast, py::arg("tensor"), py::arg("root"), release())
      .def("reduce", &PG::reduce, py::arg("tensor"), py::arg("root"), py::arg("op"), release())
      .def("all_gather", &PG::all_gather, py::arg("outputs"), py::arg("input"), release())
      .def("all_gather_into_tensor", &PG::all_gather_into_tensor, py::arg("output"),
           py::arg("input"), release())
      .def("reduce_scatter_tensor", &PG::reduce_scatter_tensor, py::arg("output"), py::arg("input"),
           py::arg("op"), release())
      .def("reduce_scatter", &PG::reduce_scatter, py::arg("output"), py::arg("inputs"),
           py::arg("op"), release())
      .def("all_to_all_single", &PG::all_to_all_single, py::arg("output"), py::arg("input"),
           py::arg("output_split_sizes"), py::arg("input_split_sizes"), release())
      .def("gather", &PG::gather, py::arg("outputs"), py::arg("input"), py::arg("root"), release())
      .def("scatter", &PG::scatter, py::arg("output"), py::arg("inputs"), py::arg("root"), release())
      .def("send", &PG::send, py::arg("tensor"), py::arg("dst"), py::arg("tag"), release())
      .def("recv", &PG::recv, py::arg("tensor"), py::arg("src"), py::arg("tag"), release())
      .def("barrier", &PG::barrier, release());

  m.def("is_gloo_available", &dist::is_gloo_available);
  m.def("make_gloo_process_group", [](const StorePtr& store, int rank, int size, py::handle timeout) {
    dist::GlooOptions options;
    options.timeout = timeout_from(timeout, dist::kDefaultProcessGroupTimeout);
    py::gil_scoped_release no_gil;
    return dist::make_gloo_process_group(store, rank, size, options);
  }, py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout") = py::none());
  m.def("init_process_group", [](const std::string& backend, const StorePtr& store, int rank,
                                 int world_size, py::handle timeout) {
    dist::Milliseconds t = timeout_from(timeout, dist::kDefaultProcessGroupTimeout);
    py::gil_scoped_release no_gil;
    dist::init_process_group(backend, store, rank, world_size, t);
  }, py::arg("backend"), py::arg("store"), py::arg("rank"), py::arg("world_size"),
     py::arg("timeout") = py::none());
  m.def("is_initialized", &dist::is_initialized);
  m.def("default_process_group", &dist::default_process_group);
  m.def("destroy_process_group", &dist::destroy_process_group, release());
}

void bind_dist_errors(py::module_& m) {
  static py::exception<dist::DistError> dist_error(m, "DistError", PyExc_RuntimeError);
  static py::exception<dist::DistStoreError> store_error(m, "DistStoreError", dist_error.ptr());
  static py::exception<dist::DistNetworkError> network_error(m, "DistNetworkError", dist_error.ptr());
  static py::exception<dist::DistBackendError> backend_error(m, "DistBackendError", dist_error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const dist::DistStoreError& e) {
      PyErr_SetString(store_error.ptr(), e.what());
    } catch (const dist::DistNetworkError& e) {
      PyErr_SetString(network_error.ptr(), e.what());
    } catch (const dist::DistBackendError& e) {
      PyErr_SetString(backend_error.ptr(), e.what());
    } catch (const dist::DistError& e) {
      PyErr_SetString(dist_error.ptr(), e.what());
    }
  });
}

}  // namespace

void bind_distributed(py::module_& m) {
  py::module_ d = m.def_submodule("_distributed", "ember::distributed (ember.distributed)");
  bind_dist_errors(d);
  bind_stores(d);
  bind_work(d);
  bind_process_group(d);
}

}  // namespace ember::python
