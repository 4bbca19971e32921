// Python bindings of the shape_index group: module functions (ember.cat, ...)
// and Tensor methods (x.flip(...), ...) with PyTorch's names and arguments.
// Indexing (x[...]) is bound in indexing.cpp.
#include "bindings.h"

namespace ember::python {

void bind_indexing(TensorClass& cls);  // indexing.cpp

namespace {

// An int or a sequence of ints (PyTorch's IntArrayRef arguments accept both).
IntList int_list(py::handle obj, const char* op, const char* arg) {
  if (PyLong_Check(obj.ptr()) && !PyBool_Check(obj.ptr())) return {obj.cast<int64_t>()};
  try {
    return obj.cast<IntList>();
  } catch (const py::cast_error&) {
    throw TypeError(detail::str(op, "(): argument '", arg, "' must be an int or a tuple of ints, "
                                "not ", std::string(py::str(py::type::handle_of(obj).attr("__name__")))));
  }
}

// x.flip(0, 1), x.flip((0, 1)), x.flip(dims=(0, 1)): one keyword may replace the varargs.
IntList varargs_ints(const py::args& args, const py::kwargs& kwargs, const char* op,
                     const char* key) {
  if (kwargs.size() > 0) {
    if (kwargs.size() != 1 || !kwargs.contains(key) || args.size() != 0)
      throw TypeError(detail::str(op, "() got unexpected arguments; expected ints or ", key, "="));
    return int_list(kwargs[key], op, key);
  }
  return shape_from_args(args, op);
}

py::object make_namedtuple(py::module_& types, const char* name) {
  py::object namedtuple = py::module_::import("collections").attr("namedtuple");
  py::object cls = namedtuple(name, py::make_tuple("values", "indices"));
  cls.attr("__module__") = "ember.return_types";
  types.attr(name) = cls;
  return cls;
}

py::object unique_result(const std::tuple<Tensor, Tensor, Tensor>& r, bool inverse, bool counts) {
  if (!inverse && !counts) return py::cast(std::get<0>(r));
  py::list out;
  out.append(std::get<0>(r));
  if (inverse) out.append(std::get<1>(r));
  if (counts) out.append(std::get<2>(r));
  return py::tuple(out);
}

py::object nonzero_result(const Tensor& t, bool as_tuple) {
  if (!as_tuple) return py::cast(nonzero(t));
  return py::tuple(py::cast(nonzero_tuple(t)));
}

// The `tensors` argument of cat, stack, ...: a sequence of tensors. A tensor is itself a
// sequence, but PyTorch's signature takes a tuple of Tensors, so a lone one is a TypeError
// (torch.cat(x)) rather than being joined row by row.
TensorList tensor_sequence(py::handle obj, const char* op) {
  if (is_tensor(obj))
    throw TypeError(detail::str(op, "(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"));
  return obj.cast<TensorList>();
}

void bind_join(py::module_& m, TensorClass& cls) {
  for (const char* name : {"cat", "concat", "concatenate"})
    m.def(name, [name](py::handle tensors, int64_t dim) { return cat(tensor_sequence(tensors, name), dim); },
          py::arg("tensors"), py::arg("dim") = 0);
  m.def("stack", [](py::handle tensors, int64_t dim) { return stack(tensor_sequence(tensors, "stack"), dim); },
        py::arg("tensors"), py::arg("dim") = 0);
  m.def("hstack", [](py::handle tensors) { return hstack(tensor_sequence(tensors, "hstack")); },
        py::arg("tensors"));
  m.def("vstack", [](py::handle tensors) { return vstack(tensor_sequence(tensors, "vstack")); },
        py::arg("tensors"));
  auto split_fn = [](const Tensor& t, py::handle size, int64_t dim) {
    if (PyLong_Check(size.ptr())) return split(t, size.cast<int64_t>(), dim);
    return split_with_sizes(t, int_list(size, "split", "split_size_or_sections"), dim);
  };
  m.def("split", split_fn, py::arg("tensor"), py::arg("split_size_or_sections"), py::arg("dim") = 0);
  cls.def("split", split_fn, py::arg("split_size"), py::arg("dim") = 0);
  cls.def("split_with_sizes", &split_with_sizes, py::arg("split_sizes"), py::arg("dim") = 0);
  auto chunk_fn = [](const Tensor& t, int64_t chunks, int64_t dim) { return chunk(t, chunks, dim); };
  m.def("chunk", chunk_fn, py::arg("input"), py::arg("chunks"), py::arg("dim") = 0);
  cls.def("chunk", chunk_fn, py::arg("chunks"), py::arg("dim") = 0);
  auto tensor_split_fn = [](const Tensor& t, py::handle sections, int64_t dim) {
    if (PyLong_Check(sections.ptr())) return tensor_split(t, sections.cast<int64_t>(), dim);
    return tensor_split(t, int_list(sections, "tensor_split", "indices_or_sections"), dim);
  };
  m.def("tensor_split", tensor_split_fn, py::arg("input"), py::arg("indices_or_sections"),
        py::arg("dim") = 0);
  cls.def("tensor_split", tensor_split_fn, py::arg("indices_or_sections"), py::arg("dim") = 0);
}

void bind_rearrange(py::module_& m, TensorClass& cls) {
  cls.def("repeat", [](const Tensor& t, py::args a, py::kwargs k) {
    return repeat(t, varargs_ints(a, k, "repeat", "repeats"));
  });
  m.def("tile", [](const Tensor& t, py::handle dims) { return tile(t, int_list(dims, "tile", "dims")); },
        py::arg("input"), py::arg("dims"));
  cls.def("tile", [](const Tensor& t, py::args a, py::kwargs k) {
    return tile(t, varargs_ints(a, k, "tile", "dims"));
  });
  m.def("flip", [](const Tensor& t, py::handle dims) {
    // torch.flip's dims is a tuple of ints (a bare int is TypeError there; x.flip(0) is fine).
    if (PyLong_Check(dims.ptr()))
      throw TypeError("flip(): argument 'dims' (position 2) must be tuple of ints, not int");
    return flip(t, int_list(dims, "flip", "dims"));
  },
        py::arg("input"), py::arg("dims"));
  cls.def("flip", [](const Tensor& t, py::args a, py::kwargs k) {
    return flip(t, varargs_ints(a, k, "flip", "dims"));
  });
  m.def("fliplr", &fliplr, py::arg("input"));
  m.def("flipud", &flipud, py::arg("input"));
  cls.def("fliplr", &fliplr).def("flipud", &flipud);
  auto roll_fn = [](const Tensor& t, py::handle shifts, py::handle dims) {
    IntList d = dims.is_none() ? IntList{} : int_list(dims, "roll", "dims");
    return roll(t, int_list(shifts, "roll", "shifts"), d);
  };
  m.def("roll", roll_fn, py::arg("input"), py::arg("shifts"), py::arg("dims") = py::none());
  cls.def("roll", roll_fn, py::arg("shifts"), py::arg("dims") = py::none());
  for (auto [name, fn] : {std::pair{"tril", &tril}, std::pair{"triu", &triu}}) {
    m.def(name, fn, py::arg("input"), py::arg("diagonal") = 0);
    cls.def(name, fn, py::arg("diagonal") = 0);
  }
  m.def("diag", &diag, py::arg("input"), py::arg("diagonal") = 0);
  cls.def("diag", &diag, py::arg("diagonal") = 0);
  m.def("diagonal", &diagonal, py::arg("input"), py::arg("offset") = 0, py::arg("dim1") = 0,
        py::arg("dim2") = 1);
  cls.def("diagonal", &diagonal, py::arg("offset") = 0, py::arg("dim1") = 0, py::arg("dim2") = 1);
}

// scatter's reduce= as PyTorch spells it (None, "add", "multiply").
std::string reduce_arg(const std::optional<std::string>& r) { return r.value_or(""); }

void bind_along_dim(py::module_& m, TensorClass& cls) {
  auto gather_fn = [](const Tensor& t, int64_t dim, const Tensor& index, bool) {
    return gather(t, dim, index);
  };
  m.def("gather", gather_fn, py::arg("input"), py::arg("dim"), py::arg("index"), py::kw_only(),
        py::arg("sparse_grad") = false);
  cls.def("gather", gather_fn, py::arg("dim"), py::arg("index"), py::kw_only(),
          py::arg("sparse_grad") = false);
  using R = std::optional<std::string>;
  auto sc_t = [](const Tensor& t, int64_t d, const Tensor& i, const Tensor& src, R r) {
    return scatter(t, d, i, src, reduce_arg(r));
  };
  auto sc_v = [](const Tensor& t, int64_t d, const Tensor& i, const Scalar& v, R r) {
    return scatter(t, d, i, v, reduce_arg(r));
  };
  auto sc_t_ = [](Tensor& t, int64_t d, const Tensor& i, const Tensor& src, R r) -> Tensor {
    return scatter_(t, d, i, src, reduce_arg(r));
  };
  auto sc_v_ = [](Tensor& t, int64_t d, const Tensor& i, const Scalar& v, R r) -> Tensor {
    return scatter_(t, d, i, v, reduce_arg(r));
  };
  m.def("scatter", sc_t, py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("src"),
        py::kw_only(), py::arg("reduce") = py::none());
  m.def("scatter", sc_v, py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("value"),
        py::kw_only(), py::arg("reduce") = py::none());
  cls.def("scatter", sc_t, py::arg("dim"), py::arg("index"), py::arg("src"), py::kw_only(),
          py::arg("reduce") = py::none());
  cls.def("scatter", sc_v, py::arg("dim"), py::arg("index"), py::arg("value"), py::kw_only(),
          py::arg("reduce") = py::none());
  cls.def("scatter_", sc_t_, py::arg("dim"), py::arg("index"), py::arg("src"), py::kw_only(),
          py::arg("reduce") = py::none());
  cls.def("scatter_", sc_v_, py::arg("dim"), py::arg("index"), py::arg("value"), py::kw_only(),
          py::arg("reduce") = py::none());
  m.def("scatter_add", &scatter_add, py::arg("input"), py::arg("dim"), py::arg("index"),
        py::arg("src"));
  cls.def("scatter_add", &scatter_add, py::arg("dim"), py::arg("index"), py::arg("src"));
  cls.def("scatter_add_", [](Tensor& t, int64_t d, const Tensor& i, const Tensor& src) -> Tensor {
    return scatter_add_(t, d, i, src);
  }, py::arg("dim"), py::arg("index"), py::arg("src"));
  m.def("scatter_reduce", &scatter_reduce, py::arg("input"), py::arg("dim"), py::arg("index"),
        py::arg("src"), py::arg("reduce"), py::kw_only(), py::arg("include_self") = true);
  cls.def("scatter_reduce", &scatter_reduce, py::arg("dim"), py::arg("index"), py::arg("src"),
          py::arg("reduce"), py::kw_only(), py::arg("include_self") = true);
  cls.def("scatter_reduce_", [](Tensor& t, int64_t d, const Tensor& i, const Tensor& src,
                                const std::string& reduce, bool include_self) -> Tensor {
    return scatter_reduce_(t, d, i, src, reduce, include_self);
  }, py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"), py::kw_only(),
     py::arg("include_self") = true);
  m.def("index_reduce", &index_reduce, py::arg("input"), py::arg("dim"), py::arg("index"),
        py::arg("source"), py::arg("reduce"), py::kw_only(), py::arg("include_self") = true);
  cls.def("index_reduce", &index_reduce, py::arg("dim"), py::arg("index"), py::arg("source"),
          py::arg("reduce"), py::kw_only(), py::arg("include_self") = true);
  cls.def("index_reduce_", [](Tensor& t, int64_t d, const Tensor& i, const Tensor& s,
                              const std::string& reduce, bool include_self) -> Tensor {
    return index_reduce_(t, d, i, s, reduce, include_self);
  }, py::arg("dim"), py::arg("index"), py::arg("source"), py::arg("reduce"), py::kw_only(),
     py::arg("include_self") = true);
  m.def("index_select", &index_select, py::arg("input"), py::arg("dim"), py::arg("index"));
  cls.def("index_select", &index_select, py::arg("dim"), py::arg("index"));
  m.def("index_add", &index_add, py::arg("input"), py::arg("dim"), py::arg("index"),
        py::arg("source"), py::kw_only(), py::arg("alpha") = 1);
  cls.def("index_add", &index_add, py::arg("dim"), py::arg("index"), py::arg("source"),
          py::kw_only(), py::arg("alpha") = 1);
  cls.def("index_add_", [](Tensor& t, int64_t d, const Tensor& i, const Tensor& s, const Scalar& a)
          -> Tensor { return index_add_(t, d, i, s, a); },
          py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1);
  m.def("index_copy", &index_copy, py::arg("input"), py::arg("dim"), py::arg("index"),
        py::arg("source"));
  cls.def("index_copy", &index_copy, py::arg("dim"), py::arg("index"), py::arg("source"));
  cls.def("index_copy_", [](Tensor& t, int64_t d, const Tensor& i, const Tensor& s) -> Tensor {
    return index_copy_(t, d, i, s);
  }, py::arg("dim"), py::arg("index"), py::arg("source"));
  auto fill_v = [](const Tensor& t, int64_t d, const Tensor& i, const Scalar& v) {
    return index_fill(t, d, i, v);
  };
  auto fill_t = [](const Tensor& t, int64_t d, const Tensor& i, const Tensor& v) {
    return index_fill(t, d, i, v);
  };
  m.def("index_fill", fill_v, py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("value"));
  m.def("index_fill", fill_t, py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("value"));
  cls.def("index_fill", fill_v, py::arg("dim"), py::arg("index"), py::arg("value"));
  cls.def("index_fill", fill_t, py::arg("dim"), py::arg("index"), py::arg("value"));
  cls.def("index_fill_", [](Tensor& t, int64_t d, const Tensor& i, const Scalar& v) -> Tensor {
    return index_fill_(t, d, i, v);
  }, py::arg("dim"), py::arg("index"), py::arg("value"));
  cls.def("index_fill_", [](Tensor& t, int64_t d, const Tensor& i, const Tensor& v) -> Tensor {
    return index_fill_(t, d, i, v);
  }, py::arg("dim"), py::arg("index"), py::arg("value"));
  m.def("take", &take, py::arg("input"), py::arg("index"));
  cls.def("take", &take, py::arg("index"));
}

void bind_masks(py::module_& m, TensorClass& cls) {
  using ScalarFill = Tensor (*)(const Tensor&, const Tensor&, const Scalar&);
  using TensorFill = Tensor (*)(const Tensor&, const Tensor&, const Tensor&);
  m.def("masked_fill", static_cast<ScalarFill>(&masked_fill), py::arg("input"), py::arg("mask"),
        py::arg("value"));
  m.def("masked_fill", static_cast<TensorFill>(&masked_fill), py::arg("input"), py::arg("mask"),
        py::arg("value"));
  cls.def("masked_fill", static_cast<ScalarFill>(&masked_fill), py::arg("mask"), py::arg("value"));
  cls.def("masked_fill", static_cast<TensorFill>(&masked_fill), py::arg("mask"), py::arg("value"));
  cls.def("masked_fill_", [](Tensor& t, const Tensor& mask, const Scalar& v) -> Tensor {
    return masked_fill_(t, mask, v);
  }, py::arg("mask"), py::arg("value"));
  cls.def("masked_fill_", [](Tensor& t, const Tensor& mask, const Tensor& v) -> Tensor {
    return masked_fill_(t, mask, v);
  }, py::arg("mask"), py::arg("value"));
  m.def("masked_select", &masked_select, py::arg("input"), py::arg("mask"));
  cls.def("masked_select", &masked_select, py::arg("mask"));
  m.def("nonzero", &nonzero_result, py::arg("input"), py::kw_only(), py::arg("as_tuple") = false);
  cls.def("nonzero", &nonzero_result, py::kw_only(), py::arg("as_tuple") = false);
  m.def("argwhere", &argwhere, py::arg("input"));
  cls.def("argwhere", &argwhere);
  // where(condition, input, other) belongs to the elementwise group; this is the 1-argument form.
  m.def("where", [](const Tensor& c) { return py::tuple(py::cast(where(c))); }, py::arg("condition"));
}

void bind_sorting(py::module_& m, TensorClass& cls) {
  py::module_ types = m.def_submodule("return_types", "named tuples returned by ops");
  // Leaked on purpose: they must outlive the interpreter's teardown.
  static py::handle sort_t = make_namedtuple(types, "sort").release();
  static py::handle topk_t = make_namedtuple(types, "topk").release();
  auto sort_fn = [](const Tensor& t, int64_t dim, bool descending, bool stable) {
    auto [v, i] = sort(t, dim, descending, stable);
    return sort_t(v, i);
  };
  m.def("sort", sort_fn, py::arg("input"), py::arg("dim") = -1, py::arg("descending") = false,
        py::kw_only(), py::arg("stable") = false);
  cls.def("sort", sort_fn, py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(),
          py::arg("stable") = false);
  m.def("argsort", &argsort, py::arg("input"), py::arg("dim") = -1, py::arg("descending") = false,
        py::kw_only(), py::arg("stable") = false);
  cls.def("argsort", &argsort, py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(),
          py::arg("stable") = false);
  auto topk_fn = [](const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted) {
    auto [v, i] = topk(t, k, dim, largest, sorted);
    return topk_t(v, i);
  };
  m.def("topk", topk_fn, py::arg("input"), py::arg("k"), py::arg("dim") = -1,
        py::arg("largest") = true, py::arg("sorted") = true);
  cls.def("topk", topk_fn, py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true,
          py::arg("sorted") = true);
  auto unique_fn = [](const Tensor& t, bool sorted, bool inverse, bool counts,
                      std::optional<int64_t> dim) {
    return unique_result(unique(t, sorted, inverse, counts, dim), inverse, counts);
  };
  m.def("unique", unique_fn, py::arg("input"), py::arg("sorted") = true,
        py::arg("return_inverse") = false, py::arg("return_counts") = false,
        py::arg("dim") = py::none());
  cls.def("unique", unique_fn, py::arg("sorted") = true, py::arg("return_inverse") = false,
          py::arg("return_counts") = false, py::arg("dim") = py::none());
}

void bind_index_put(py::module_& m, TensorClass& cls) {
  // indices: a tuple of tensors. PyTorch's binding takes no None here (x[:, i] = v
  // is the way to leave a dim whole), and raises TypeError naming the element.
  auto tensors = [](const char* op, const std::vector<std::optional<Tensor>>& idx) {
    TensorList out;
    for (size_t k = 0; k < idx.size(); ++k) {
      if (!idx[k])
        throw TypeError(detail::str(op, "(): expected Tensor as element ", k,
                                         " in argument 'indices', but got NoneType"));
      out.push_back(*idx[k]);
    }
    return out;
  };
  cls.def("index_put_", [tensors](Tensor& t, const std::vector<std::optional<Tensor>>& idx,
                                  const Tensor& values, bool accumulate) -> Tensor {
    return index_put_(t, tensors("index_put_", idx), values, accumulate);
  }, py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
  auto put = [tensors](const Tensor& t, const std::vector<std::optional<Tensor>>& idx,
                       const Tensor& values, bool accumulate) {
    return index_put(t, tensors("index_put", idx), values, accumulate);
  };
  m.def("index_put", put, py::arg("input"), py::arg("indices"), py::arg("values"),
        py::arg("accumulate") = false);
  cls.def("index_put", put, py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
}

}  // namespace

void bind_shape_index(py::module_& m, TensorClass& cls) {
  bind_join(m, cls);
  bind_rearrange(m, cls);
  bind_along_dim(m, cls);
  bind_masks(m, cls);
  bind_sorting(m, cls);
  bind_index_put(m, cls);
  bind_indexing(cls);
}

}  // namespace ember::python
