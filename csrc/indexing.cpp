// Python indexing: Tensor.__getitem__ and __setitem__. This file only turns
// Python objects into ember::TensorIndex values (Note [Indexing] in
// lib/ops/index_tensor.cpp does the work), with fast paths for x[i], x[a:b],
// x[None], x[...] and x[tensor], which need no list of indices.
#include <cstdint>
#include <variant>

#include "bindings.h"

namespace ember::python {

namespace {

[[noreturn]] void invalid_index(py::handle obj) {
  // PyTorch reads a str (or bytes) index as a sequence to make an index tensor from, and
  // fails there with a TypeError on its data type; other bad index objects are IndexErrors.
  if (PyUnicode_Check(obj.ptr()) || PyBytes_Check(obj.ptr()))
    throw TypeError(detail::str("invalid data type '",
                                std::string(py::str(py::type::handle_of(obj).attr("__name__"))),
                                "' for an index: only integers, slices (`:`), ellipsis (`...`), None, "
                                "bools and integer or boolean tensors are valid indices"));
  throw IndexError(detail::str("only integers, slices (`:`), ellipsis (`...`), None, bools and "
                               "integer or boolean tensors are valid indices (got ",
                               std::string(py::str(py::type::handle_of(obj).attr("__name__"))), ")"));
}

int64_t to_int64(PyObject* o) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow) throw IndexError("index is too large to fit in int64");
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<int64_t>(v);
}

// numpy scalars and arrays (anything with dtype and tolist) read as Python values.
bool is_array_like(py::handle obj) {
  return !is_tensor(obj) && py::hasattr(obj, "dtype") && py::hasattr(obj, "tolist");
}

std::optional<int64_t> slice_bound(PyObject* o) {
  if (o == Py_None) return std::nullopt;
  if (PyLong_Check(o)) return to_int64(o);
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(o));
  if (!i) {
    PyErr_Clear();
    throw TypeError("slice indices must be integers or None or have an __index__ method");
  }
  return to_int64(i.ptr());
}

indexing::Slice to_slice(PyObject* o) {
  auto* s = reinterpret_cast<PySliceObject*>(o);
  return indexing::Slice(slice_bound(s->start), slice_bound(s->stop), slice_bound(s->step));
}

// A nested sequence of numbers as a tensor: bool if every leaf is a bool, int64
// if every leaf is an integer, else float (only where floats are allowed).
struct Leaves {
  std::vector<int64_t> ints;
  std::vector<double> floats;
  bool all_bool = true, any_float = false;
  IntList shape;
};

void collect(py::handle obj, int64_t depth, Leaves& out, bool allow_float) {
  PyObject* o = obj.ptr();
  if (PyList_Check(o) || PyTuple_Check(o)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
    int64_t n = static_cast<int64_t>(seq.size());
    if (static_cast<int64_t>(out.shape.size()) == depth) out.shape.push_back(n);
    else if (static_cast<int64_t>(out.shape.size()) < depth || out.shape[depth] != n)
      throw ValueError("expected a sequence of equal-length sequences (a rectangular array)");
    for (const py::handle& item : seq) collect(item, depth + 1, out, allow_float);
    return;
  }
  if (static_cast<int64_t>(out.shape.size()) != depth)
    throw ValueError("expected a sequence of equal-length sequences (a rectangular array)");
  if (PyBool_Check(o)) {
    out.ints.push_back(o == Py_True);
    out.floats.push_back(o == Py_True);
    return;
  }
  out.all_bool = false;
  if (PyLong_Check(o) || (PyIndex_Check(o) && !PyFloat_Check(o))) {
    py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(o));
    if (!i) throw py::error_already_set();
    int64_t v = to_int64(i.ptr());
    out.ints.push_back(v);
    out.floats.push_back(static_cast<double>(v));
    return;
  }
  if (allow_float && PyFloat_Check(o)) {
    out.any_float = true;
    out.ints.push_back(0);
    out.floats.push_back(PyFloat_AS_DOUBLE(o));
    return;
  }
  if (allow_float) throw TypeError("expected numbers in the value sequence");
  invalid_index(obj);
}

Tensor leaves_to_tensor(const Leaves& l) {
  if (l.any_float) return from_vector(l.floats, l.shape, TensorOptions(kFloat64));
  if (l.all_bool && !l.ints.empty()) {
    std::vector<uint8_t> b(l.ints.begin(), l.ints.end());
    return from_vector(b, l.shape, TensorOptions(kBool));
  }
  return from_vector(l.ints, l.shape, TensorOptions(kInt64));
}

Tensor sequence_to_tensor(py::handle obj, bool allow_float) {
  Leaves l;
  collect(obj, 0, l, allow_float);
  return leaves_to_tensor(l);
}

TensorIndex to_index(py::handle obj) {
  PyObject* o = obj.ptr();
  if (o == Py_None) return TensorIndex(indexing::None);
  if (o == Py_Ellipsis) return TensorIndex(indexing::Ellipsis);
  if (PyBool_Check(o)) return TensorIndex(o == Py_True);
  if (PyLong_Check(o)) return TensorIndex(to_int64(o));
  if (PySlice_Check(o)) return TensorIndex(to_slice(o));
  if (is_tensor(obj)) return TensorIndex(obj.cast<Tensor>());
  if (is_array_like(obj)) {
    py::object v = obj.attr("tolist")();
    if (PyList_Check(v.ptr())) return TensorIndex(sequence_to_tensor(v, false));
    return to_index(v);
  }
  if (PyList_Check(o) || PyTuple_Check(o)) return TensorIndex(sequence_to_tensor(obj, false));
  // x[range(n), y] (a common way to pick one entry per row): torch reads a range as the
  // sequence of its integers.
  if (PyRange_Check(o)) {
    py::object items = py::reinterpret_steal<py::object>(PySequence_List(o));
    if (!items) throw py::error_already_set();
    return TensorIndex(sequence_to_tensor(items, false));
  }
  if (PyIndex_Check(o) && !PyFloat_Check(o)) {
    py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(o));
    if (!i) throw py::error_already_set();
    return TensorIndex(to_int64(i.ptr()));
  }
  invalid_index(obj);
}

std::vector<TensorIndex> to_indices(py::handle obj) {
  std::vector<TensorIndex> out;
  if (PyTuple_Check(obj.ptr())) {
    for (const py::handle& item : py::reinterpret_borrow<py::tuple>(obj)) out.push_back(to_index(item));
  } else {
    out.push_back(to_index(obj));
  }
  return out;
}

Tensor getitem(const Tensor& self, py::handle obj) {
  PyObject* o = obj.ptr();
  if (PyLong_Check(o) && !PyBool_Check(o)) {  // x[i]: the hot path in loops
    EMBER_CHECK_INDEX(self.dim() > 0, "invalid index of a 0-dim tensor. Use `tensor.item()` to "
                      "get the value of a 0-dim tensor");
    return select(self, 0, to_int64(o));
  }
  if (PySlice_Check(o) && self.dim() > 0) {
    indexing::Slice s = to_slice(o);
    int64_t step = s.step.value_or(1);
    EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
    return slice(self, 0, s.start, s.stop, step);
  }
  if (o == Py_None) return unsqueeze(self, 0);
  if (o == Py_Ellipsis) return alias(self);
  return index(self, to_indices(obj));
}

// A value to write: a tensor, a number, or a (nested) sequence of numbers.
std::variant<Tensor, Scalar> to_value(py::handle value) {
  if (is_tensor(value)) return value.cast<Tensor>();
  py::detail::make_caster<Scalar> sc;
  if (sc.load(value, true)) return py::detail::cast_op<Scalar>(sc);
  py::handle seq = value;
  py::object list;
  if (is_array_like(value)) {
    list = value.attr("tolist")();
    seq = list;
  }
  if (PyList_Check(seq.ptr()) || PyTuple_Check(seq.ptr())) return sequence_to_tensor(seq, true);
  throw TypeError(detail::str("can't assign a ", std::string(py::str(py::type::handle_of(value).attr("__name__"))),
                              " to a Tensor"));
}

void setitem(Tensor& self, py::handle obj, py::handle value) {
  std::variant<Tensor, Scalar> v = to_value(value);
  PyObject* o = obj.ptr();
  if (PyLong_Check(o) && !PyBool_Check(o) && self.dim() > 0) {  // x[i] = v
    Tensor row = select(self, 0, to_int64(o));
    if (auto* s = std::get_if<Scalar>(&v)) row.fill_(*s);
    else index_put_(row, std::vector<TensorIndex>{}, std::get<Tensor>(v));
    return;
  }
  std::vector<TensorIndex> indices = to_indices(obj);
  if (auto* s = std::get_if<Scalar>(&v)) index_put_(self, indices, *s);
  else index_put_(self, indices, std::get<Tensor>(v));
}

}  // namespace

Tensor tensor_getitem(const Tensor& self, py::handle obj) { return getitem(self, obj); }

void bind_indexing(TensorClass& cls) {
  cls.def("__getitem__", [](const Tensor& self, py::handle obj) { return getitem(self, obj); })
      .def("__setitem__", [](Tensor& self, py::handle obj, py::handle value) {
        setitem(self, obj, value);
      });
}

}  // namespace ember::python
