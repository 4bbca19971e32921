// Python bindings of the tensor API round-out: module functions for the views that
// were only methods (ember.reshape, ember.permute, ...), and the composites of
// include/ember/ops/tensor_api.h as functions and methods, with torch's names.
#include "bindings.h"

namespace ember::python {

namespace {

// An int or a sequence of ints (torch's IntArrayRef arguments accept both).
IntList ints(py::handle obj, const char* op, const char* arg) {
  if (PyIndex_Check(obj.ptr()) && !PyBool_Check(obj.ptr()) && !is_tensor(obj))
    return {obj.cast<int64_t>()};
  try {
    return obj.cast<IntList>();
  } catch (const py::cast_error&) {
    throw TypeError(detail::str(op, "(): argument '", arg, "' must be tuple of ints, not ",
                                std::string(py::str(py::type::handle_of(obj).attr("__name__")))));
  }
}

// f(*tensors) or f(tensors): torch's varargs tensor lists.
TensorList tensor_varargs(const py::args& args) {
  if (args.size() == 1 && !is_tensor(args[0])) return args[0].cast<TensorList>();
  return args.cast<TensorList>();
}

py::tuple as_tuple(const TensorList& list) { return py::tuple(py::cast(list)); }

py::object size_object(const DimVector& v) {
  py::tuple t(v.size());
  for (size_t i = 0; i < v.size(); ++i) t[i] = py::int_(v[i]);
  return py::module_::import("ember").attr("Size")(t);
}

Tensor squeeze_any(const Tensor& t, py::handle dim) {
  if (dim.is_none()) return squeeze(t);
  if (PyIndex_Check(dim.ptr())) return squeeze(t, dim.cast<int64_t>());
  return squeeze_dims(t, ints(dim, "squeeze", "dim"));
}

Tensor movedim_any(const Tensor& t, py::handle src, py::handle dst) {
  if (PyIndex_Check(src.ptr()) && PyIndex_Check(dst.ptr()))
    return movedim(t, src.cast<int64_t>(), dst.cast<int64_t>());
  return movedim(t, ints(src, "movedim", "source"), ints(dst, "movedim", "destination"));
}

void bind_views(py::module_& m, TensorClass& cls) {
  m.def("reshape", [](const Tensor& t, py::handle s) { return reshape(t, ints(s, "reshape", "shape")); },
        py::arg("input"), py::arg("shape"));
  m.def("permute", [](const Tensor& t, py::handle d) { return permute(t, ints(d, "permute", "dims")); },
        py::arg("input"), py::arg("dims"));
  m.def("transpose", &transpose, py::arg("input"), py::arg("dim0"), py::arg("dim1"));
  m.def("swapaxes", &swapaxes, py::arg("input"), py::arg("axis0"), py::arg("axis1"));
  m.def("swapdims", &swapdims, py::arg("input"), py::arg("dim0"), py::arg("dim1"));
  m.def("t", &t, py::arg("input"));
  m.def("squeeze", &squeeze_any, py::arg("input"), py::arg("dim") = py::none());
  m.def("unsqueeze", &unsqueeze, py::arg("input"), py::arg("dim"));
  m.def("flatten", &flatten, py::arg("input"), py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  m.def("unflatten", [](const Tensor& t, int64_t dim, py::handle sizes) {
    return unflatten(t, dim, ints(sizes, "unflatten", "sizes"));
  }, py::arg("input"), py::arg("dim"), py::arg("sizes"));
  m.def("narrow", &narrow, py::arg("input"), py::arg("dim"), py::arg("start"), py::arg("length"));
  m.def("narrow_copy", &narrow_copy, py::arg("input"), py::arg("dim"), py::arg("start"),
        py::arg("length"));
  cls.def("narrow_copy", &narrow_copy, py::arg("dim"), py::arg("start"), py::arg("length"));
  m.def("select", &select, py::arg("input"), py::arg("dim"), py::arg("index"));
  m.def("unbind", [](const Tensor& t, int64_t d) { return as_tuple(unbind(t, d)); },
        py::arg("input"), py::arg("dim") = 0);
  for (const char* name : {"movedim", "moveaxis"}) {
    m.def(name, &movedim_any, py::arg("input"), py::arg("source"), py::arg("destination"));
    cls.def(name, &movedim_any, py::arg("source"), py::arg("destination"));
  }
  m.def("ravel", &ravel, py::arg("input"));
  cls.def("ravel", &ravel);
  // memory_format: ember has no channels-last layouts; None keeps torch's default.
  m.def("clone", [](const Tensor& t, py::handle memory_format) {
    if (!memory_format.is_none())
      throw NotImplementedError("clone: argument 'memory_format' is not supported");
    return clone(t);
  }, py::arg("input"), py::kw_only(), py::arg("memory_format") = py::none());
  m.def("as_strided", [](const Tensor& t, py::handle size, py::handle stride,
                         std::optional<int64_t> offset) {
    return as_strided(t, ints(size, "as_strided", "size"), ints(stride, "as_strided", "stride"), offset);
  }, py::arg("input"), py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
  auto broadcast_to_fn = [](const Tensor& t, py::handle s) {
    return broadcast_to(t, ints(s, "broadcast_to", "size"));
  };
  m.def("broadcast_to", broadcast_to_fn, py::arg("input"), py::arg("size"));
  cls.def("broadcast_to", broadcast_to_fn, py::arg("size"));
  m.def("broadcast_tensors", [](py::args a) { return as_tuple(broadcast_tensors(tensor_varargs(a))); });
  m.def("broadcast_shapes", [](py::args shapes) {
    std::vector<IntList> list;
    for (py::handle s : shapes) list.push_back(ints(s, "broadcast_shapes", "shapes"));
    return size_object(broadcast_shapes(list));
  });
  m.def("detach", &detach, py::arg("input"));
  cls.def("sum_to_size", [](const Tensor& t, py::args a) {
    return sum_to_size(t, shape_from_args(a, "sum_to_size"));
  });
  // A 0-d tensor is its own adjoint in PyTorch (deprecated there, not an error).
  auto adjoint_any = [](const Tensor& t) { return t.dim() == 0 ? alias(t) : adjoint(t); };
  cls.def("adjoint", adjoint_any);
  m.def("adjoint", adjoint_any, py::arg("input"));
  cls.def_property_readonly("mH", adjoint_any);
  cls.def_property_readonly("H", [](const Tensor& t) {
    EMBER_CHECK(t.dim() == 2 || t.dim() == 0, "tensor.H is only supported on matrices (2-D tensors). Got ",
                t.dim(), "-D tensor.");
    return t.dim() == 2 ? transpose(t, 0, 1) : alias(t);
  });
}

void bind_queries(py::module_& m, TensorClass& cls) {
  m.def("is_complex", [](const Tensor&) { return false; }, py::arg("input"));
  cls.def("is_complex", [](const Tensor&) { return false; });
  m.def("is_nonzero", &is_nonzero, py::arg("input"));
  cls.def("is_nonzero", &is_nonzero);
  m.def("is_same_size", &is_same_size, py::arg("input"), py::arg("other"));
  cls.def("is_same_size", &is_same_size, py::arg("other"));
  cls.def("is_signed", [](const Tensor& t) { return is_signed(t.dtype()); });
  cls.def("get_device", [](const Tensor& t) -> int64_t { return t.is_cpu() ? -1 : t.device().index; });
  m.def("result_type", [](const TensorArg& a, const TensorArg& b) {
    return result_type(a.tensor, b.tensor);
  }, py::arg("tensor1"), py::arg("tensor2"));
  m.def("use_deterministic_algorithms", &use_deterministic_algorithms, py::arg("mode"),
        py::kw_only(), py::arg("warn_only") = false);
  m.def("are_deterministic_algorithms_enabled", &are_deterministic_algorithms_enabled);
  m.def("is_deterministic_algorithms_warn_only_enabled",
        &is_deterministic_algorithms_warn_only_enabled);
}

// h/v/dsplit(input, indices_or_sections): an int splits into equal parts, a sequence at indices.
template <TensorList (*BySections)(const Tensor&, int64_t),
          TensorList (*ByIndices)(const Tensor&, const IntList&)>
void def_axis_split(py::module_& m, TensorClass& cls, const char* name) {
  auto fn = [name](const Tensor& t, py::handle s) {
    if (PyIndex_Check(s.ptr())) return as_tuple(BySections(t, s.cast<int64_t>()));
    return as_tuple(ByIndices(t, ints(s, name, "indices")));
  };
  m.def(name, fn, py::arg("input"), py::arg("indices_or_sections"));
  cls.def(name, fn, py::arg("indices_or_sections"));
}

void bind_stacking(py::module_& m, TensorClass& cls) {
  // atleast_Nd(t) -> tensor; atleast_Nd(t1, t2, ...) or (list) -> tuple.
  auto atleast = [&m](const char* name, Tensor (*one)(const Tensor&),
                      TensorList (*many)(const TensorList&)) {
    m.def(name, [one, many](py::args a) -> py::object {
      if (a.size() == 1 && is_tensor(a[0])) return py::cast(one(a[0].cast<Tensor>()));
      return as_tuple(many(tensor_varargs(a)));
    });
  };
  atleast("atleast_1d", &atleast_1d, &atleast_1d);
  atleast("atleast_2d", &atleast_2d, &atleast_2d);
  atleast("atleast_3d", &atleast_3d, &atleast_3d);
  // A lone tensor is not a sequence of tensors here: TypeError, as torch's signature says.
  auto sequence_of_tensors = [](py::handle obj, const char* op) {
    if (is_tensor(obj))
      throw TypeError(detail::str(op, "(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"));
    return obj.cast<TensorList>();
  };
  m.def("column_stack", [sequence_of_tensors](py::handle t) {
    return column_stack(sequence_of_tensors(t, "column_stack"));
  }, py::arg("tensors"));
  m.def("row_stack", [sequence_of_tensors](py::handle t) {
    return row_stack(sequence_of_tensors(t, "row_stack"));
  }, py::arg("tensors"));
  m.def("dstack", [sequence_of_tensors](py::handle t) { return dstack(sequence_of_tensors(t, "dstack")); },
        py::arg("tensors"));
  def_axis_split<&hsplit, &hsplit>(m, cls, "hsplit");
  def_axis_split<&vsplit, &vsplit>(m, cls, "vsplit");
  def_axis_split<&dsplit, &dsplit>(m, cls, "dsplit");
  auto rot = [](const Tensor& t, int64_t k, py::handle dims) {
    return rot90(t, k, ints(dims, "rot90", "dims"));
  };
  m.def("rot90", rot, py::arg("input"), py::arg("k") = 1, py::arg("dims") = py::make_tuple(0, 1));
  cls.def("rot90", rot, py::arg("k") = 1, py::arg("dims") = py::make_tuple(0, 1));
  m.def("diag_embed", &diag_embed, py::arg("input"), py::arg("offset") = 0, py::arg("dim1") = -2,
        py::arg("dim2") = -1);
  cls.def("diag_embed", &diag_embed, py::arg("offset") = 0, py::arg("dim1") = -2, py::arg("dim2") = -1);
  m.def("diagflat", &diagflat, py::arg("input"), py::arg("offset") = 0);
  cls.def("diagflat", &diagflat, py::arg("offset") = 0);
  m.def("block_diag", [](py::args a) { return block_diag(a.cast<TensorList>()); });
  m.def("vander", &vander, py::arg("x"), py::arg("N") = py::none(), py::arg("increasing") = false);
}

void bind_scatters(py::module_& m, TensorClass& cls) {
  m.def("diagonal_scatter", &diagonal_scatter, py::arg("input"), py::arg("src"),
        py::arg("offset") = 0, py::arg("dim1") = 0, py::arg("dim2") = 1);
  cls.def("diagonal_scatter", &diagonal_scatter, py::arg("src"), py::arg("offset") = 0,
          py::arg("dim1") = 0, py::arg("dim2") = 1);
  m.def("select_scatter", &select_scatter, py::arg("input"), py::arg("src"), py::arg("dim"),
        py::arg("index"));
  cls.def("select_scatter", &select_scatter, py::arg("src"), py::arg("dim"), py::arg("index"));
  m.def("slice_scatter", &slice_scatter, py::arg("input"), py::arg("src"), py::arg("dim") = 0,
        py::arg("start") = py::none(), py::arg("end") = py::none(), py::arg("step") = 1);
  cls.def("slice_scatter", &slice_scatter, py::arg("src"), py::arg("dim") = 0,
          py::arg("start") = py::none(), py::arg("end") = py::none(), py::arg("step") = 1);
  auto tri = [&m](const char* name, Tensor (*fn)(int64_t, int64_t, int64_t, TensorOptions)) {
    m.def(name, [fn, name](int64_t row, int64_t col, int64_t offset, py::kwargs kw) {
      return fn(row, col, offset, options_from(kw, name));
    }, py::arg("row"), py::arg("col"), py::arg("offset") = 0);
  };
  tri("tril_indices", &tril_indices);
  tri("triu_indices", &triu_indices);
  m.def("meshgrid", [](py::args a, std::optional<std::string> indexing) {
    return as_tuple(meshgrid(tensor_varargs(a), indexing.value_or("ij")));
  }, py::arg("indexing") = py::none());  // after *tensors: keyword-only
  m.def("cartesian_prod", [](py::args a) { return cartesian_prod(a.cast<TensorList>()); });
  m.def("combinations", &combinations, py::arg("input"), py::arg("r") = 2,
        py::arg("with_replacement") = false);
  using Opt = std::optional<int64_t>;
  auto ri = [](const Tensor& t, py::handle repeats, Opt dim, Opt output_size) {
    if (is_tensor(repeats))
      return repeat_interleave(t, repeats.cast<Tensor>(), dim, output_size);
    return repeat_interleave(t, repeats.cast<int64_t>(), dim, output_size);
  };
  m.def("repeat_interleave", ri, py::arg("input"), py::arg("repeats"), py::arg("dim") = py::none(),
        py::kw_only(), py::arg("output_size") = py::none());
  m.def("repeat_interleave", [](const Tensor& repeats, Opt output_size) {
    return repeat_interleave(repeats, output_size);
  }, py::arg("repeats"), py::kw_only(), py::arg("output_size") = py::none());
  cls.def("repeat_interleave", ri, py::arg("repeats"), py::arg("dim") = py::none(), py::kw_only(),
          py::arg("output_size") = py::none());
  m.def("take_along_dim", &take_along_dim, py::arg("input"), py::arg("indices"),
        py::arg("dim") = py::none());
  cls.def("take_along_dim", &take_along_dim, py::arg("indices"), py::arg("dim") = py::none());
  m.def("masked_scatter", &masked_scatter, py::arg("input"), py::arg("mask"), py::arg("source"));
  cls.def("masked_scatter", &masked_scatter, py::arg("mask"), py::arg("source"));
  cls.def("masked_scatter_", [](Tensor& t, const Tensor& mask, const Tensor& source) -> Tensor {
    return masked_scatter_(t, mask, source);
  }, py::arg("mask"), py::arg("source"));
  auto uc = [](const Tensor& t, bool inverse, bool counts, Opt dim) -> py::object {
    auto [v, i, c] = unique_consecutive(t, inverse, counts, dim);
    if (!inverse && !counts) return py::cast(v);
    py::list out;
    out.append(v);
    if (inverse) out.append(i);
    if (counts) out.append(c);
    return py::tuple(out);
  };
  m.def("unique_consecutive", uc, py::arg("input"), py::arg("return_inverse") = false,
        py::arg("return_counts") = false, py::arg("dim") = py::none());
  cls.def("unique_consecutive", uc, py::arg("return_inverse") = false,
          py::arg("return_counts") = false, py::arg("dim") = py::none());
  m.def("put", &put, py::arg("input"), py::arg("index"), py::arg("source"),
        py::arg("accumulate") = false);
  cls.def("put", &put, py::arg("index"), py::arg("source"), py::arg("accumulate") = false);
  cls.def("put_", [](Tensor& t, const Tensor& index, const Tensor& source, bool acc) -> Tensor {
    return put_(t, index, source, acc);
  }, py::arg("index"), py::arg("source"), py::arg("accumulate") = false);
}

}  // namespace

void bind_tensor_methods(py::module_& m, TensorClass& cls);  // tensor_methods.cpp

void bind_tensor_api(py::module_& m, TensorClass& cls) {
  bind_views(m, cls);
  bind_queries(m, cls);
  bind_stacking(m, cls);
  bind_scatters(m, cls);
  bind_tensor_methods(m, cls);
}

}  // namespace ember::python
