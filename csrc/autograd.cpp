// Python bindings of autograd: Tensor.backward/.grad/.grad_fn/hooks, grad mode,
// ember.autograd.grad/backward, and the C++ side of ember.autograd.Function.
#include "autograd/autograd_meta.h"
#include "autograd/saved_tensor.h"
#include "autograd/view_tracking.h"
#include "bindings.h"
#include "ember/autograd.h"

namespace ember::python {
namespace {

using autograd::Node;

TensorList tensors_or_none(py::handle seq) {
  TensorList out;
  if (seq.is_none()) return out;
  if (py::isinstance<Tensor>(seq)) return {seq.cast<Tensor>()};
  for (py::handle h : seq) out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  return out;
}

py::object tensor_or_none(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

// The backward node of a Python autograd.Function: calls cls.backward(ctx, *grads).
class PyFunctionNode : public Node {
 public:
  PyFunctionNode(py::object backward, py::object ctx, std::string name)
      : backward_(std::move(backward)), ctx_(std::move(ctx)), name_(std::move(name)) {}
  ~PyFunctionNode() override {
    py::gil_scoped_acquire gil;
    backward_ = py::object();
    ctx_ = py::object();
  }

  TensorList apply(TensorList&& grads) override {
    py::gil_scoped_acquire gil;
    EMBER_CHECK(!released_, "Trying to backward through the graph a second time (or directly "
                "access saved tensors after they have already been freed). Specify "
                "retain_graph=True if you need to backward through the graph a second time.");
    py::tuple saved(saved_.size());
    auto self = shared_from_this();
    for (size_t i = 0; i < saved_.size(); ++i) saved[i] = tensor_or_none(saved_[i].unpack(self));
    ctx_.attr("saved_tensors") = saved;
    py::tuple args(grads.size() + 1);
    args[0] = ctx_;
    bool materialize = py::bool_(ctx_.attr("materialize_grads"));
    for (size_t i = 0; i < grads.size(); ++i) {
      Tensor g = grads[i];
      if (!g.defined() && materialize) {
        const OutputMeta& m = output_meta()[i];
        g = zeros(IntList(m.sizes.begin(), m.sizes.end()), TensorOptions(m.dtype).device(m.device));
      }
      args[i + 1] = tensor_or_none(g);
    }
    py::object result = backward_(*args);
    TensorList out;
    if (py::isinstance<py::tuple>(result) || py::isinstance<py::list>(result)) out = tensors_or_none(result);
    else out = {result.is_none() ? Tensor() : result.cast<Tensor>()};
    EMBER_CHECK(out.size() >= next_edges().size(), "function ", name_, " returned an incorrect "
                "number of gradients (expected ", next_edges().size(), ", got ", out.size(), ")");
    out.resize(next_edges().size());
    return out;
  }
  std::string name() const override { return name_; }
  void release_variables() override {
    saved_.clear();
    released_ = true;
  }
  std::vector<autograd::SavedTensor>& saved() { return saved_; }

 private:
  py::object backward_;
  py::object ctx_;
  std::string name_;
  std::vector<autograd::SavedTensor> saved_;
  bool released_ = false;
};

// Links the outputs of Function.forward into the graph (called by Function.apply).
py::object link_function(py::object cls, py::object ctx, py::tuple args, py::object outputs) {
  bool is_tuple = py::isinstance<py::tuple>(outputs);
  py::tuple outs = is_tuple ? outputs.cast<py::tuple>() : py::make_tuple(outputs);
  TensorList inputs;
  bool any_requires_grad = false;
  for (py::handle a : args) {
    Tensor t = py::isinstance<Tensor>(a) ? a.cast<Tensor>() : Tensor();
    any_requires_grad |= t.defined() && t.requires_grad();
    inputs.push_back(t);
  }
  std::vector<Tensor> non_diff;
  for (py::handle h : py::iterable(ctx.attr("_non_differentiable"))) non_diff.push_back(h.cast<Tensor>());
  py::list result;
  std::shared_ptr<PyFunctionNode> node;
  if (is_grad_enabled() && any_requires_grad) {
    node = std::make_shared<PyFunctionNode>(cls.attr("backward"), ctx,
                                            py::str(cls.attr("__name__")).cast<std::string>() + "Backward");
    for (const Tensor& t : inputs) node->next_edges().push_back(autograd::gradient_edge(t));
  }
  for (size_t j = 0; j < outs.size(); ++j) {
    py::handle o = outs[j];
    if (!py::isinstance<Tensor>(o)) { result.append(o); continue; }
    Tensor t = o.cast<Tensor>();
    // An input returned as it is becomes a new alias, so its own history is kept.
    for (const Tensor& in : inputs)
      if (in.defined() && in.is_same(t)) { NoGradGuard g; t = alias(t); break; }
    if (node) {
      node->output_meta().push_back(autograd::output_meta_of(t));
      bool differentiable = is_floating(t.dtype());
      for (const Tensor& nd : non_diff) differentiable &= !nd.is_same(o.cast<Tensor>());
      if (differentiable) autograd::set_history(t, node, static_cast<uint32_t>(j));
    }
    result.append(py::cast(t));
  }
  if (node) {
    for (py::handle h : py::iterable(ctx.attr("_to_save"))) {
      Tensor s = h.is_none() ? Tensor() : h.cast<Tensor>();
      bool is_output = false;
      uint32_t nr = 0;
      for (size_t j = 0; j < result.size(); ++j)
        if (py::isinstance<Tensor>(result[j]) && s.defined() &&
            (s.is_same(py::cast<Tensor>(result[j])) || s.is_same(py::cast<Tensor>(outs[j])))) {
          s = py::cast<Tensor>(result[j]);
          is_output = s.requires_grad();
          nr = static_cast<uint32_t>(j);
        }
      node->saved().emplace_back(s, is_output, nr);
    }
  } else {
    ctx.attr("saved_tensors") = py::tuple(ctx.attr("_to_save"));
  }
  ctx.attr("_to_save") = py::tuple();
  if (is_tuple) return py::tuple(result);
  return result[0];
}

}  // namespace

void bind_autograd(py::module_& m, TensorClass& cls) {
  m.def("is_grad_enabled", &is_grad_enabled);
  m.def("_set_grad_enabled", &set_grad_enabled);

  py::class_<Node, std::shared_ptr<Node>>(m, "Node")
      .def("name", &Node::name)
      .def_property_readonly("next_functions", [](const Node& n) {
        py::tuple out(n.next_edges().size());
        for (size_t i = 0; i < n.next_edges().size(); ++i) {
          const auto& e = n.next_edges()[i];
          out[i] = py::make_tuple(e.function ? py::cast(e.function) : py::none(), e.input_nr);
        }
        return out;
      })
      .def("register_prehook", [](Node& n, py::function hook) {
        return n.add_pre_hook(0, [hook](const Tensor& g) {
          py::gil_scoped_acquire gil;
          py::object r = hook(g);
          return r.is_none() ? Tensor() : r.cast<Tensor>();
        });
      })
      .def("__repr__", [](const Node& n) { return "<" + n.name() + " object>"; });

  // A view's requires_grad follows its base's once the base changed in place.
  cls.def_property("requires_grad", [](const Tensor& t) {
        autograd::refresh_view(t);
        return t.requires_grad();
      }, [](Tensor& t, bool r) { t.requires_grad_(r); })
      .def("requires_grad_", [](py::object self, bool r) {
        self.cast<Tensor&>().requires_grad_(r);
        return self;
      }, py::arg("requires_grad") = true)
      .def_property("grad", [](const Tensor& t) { return tensor_or_none(t.grad()); },
                    [](Tensor& t, py::object g) { t.set_grad(g.is_none() ? Tensor() : g.cast<Tensor>()); })
      .def_property_readonly("grad_fn", [](const Tensor& t) -> py::object {
        auto fn = t.grad_fn();
        return fn ? py::cast(fn) : py::none();
      })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def("_is_view", &Tensor::is_view)
      .def_property_readonly("_base", [](const Tensor& t) { return tensor_or_none(t._base()); })
      .def_property_readonly("output_nr", &Tensor::output_nr)
      .def("backward", [](const Tensor& t, py::object gradient, std::optional<bool> retain_graph,
                          bool create_graph, py::object inputs) {
        Tensor g = gradient.is_none() ? Tensor() : gradient.cast<Tensor>();
        TensorList in = tensors_or_none(inputs);
        py::gil_scoped_release release;  // hooks of Python Functions re-acquire it
        t.backward(g, retain_graph, create_graph, in);
      }, py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(),
         py::arg("create_graph") = false, py::kw_only(), py::arg("inputs") = py::none())
      .def("retain_grad", &Tensor::retain_grad)
      .def_property_readonly("retains_grad", &Tensor::retains_grad)
      .def("_register_hook", [](const Tensor& t, py::function hook) {
        return t.register_hook([hook](const Tensor& g) {
          py::gil_scoped_acquire gil;
          py::object r = hook(g);
          return r.is_none() ? Tensor() : r.cast<Tensor>();
        });
      })
      .def("_remove_hook", &Tensor::remove_hook)
      .def("detach_", [](py::object self) {
        self.cast<Tensor&>().detach_();
        return self;
      });

  m.def("_backward", [](py::object tensors, py::object grads, std::optional<bool> retain_graph,
                        bool create_graph, py::object inputs) {
    TensorList t = tensors_or_none(tensors), g = tensors_or_none(grads), in = tensors_or_none(inputs);
    py::gil_scoped_release release;
    autograd::backward(t, g, retain_graph, create_graph, in);
  });
  m.def("_grad", [](py::object outputs, py::object inputs, py::object grad_outputs,
                    std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
    TensorList o = tensors_or_none(outputs), i = tensors_or_none(inputs), g = tensors_or_none(grad_outputs);
    TensorList r;
    {
      py::gil_scoped_release release;
      r = autograd::grad(o, i, g, retain_graph, create_graph, allow_unused);
    }
    py::tuple out(r.size());
    for (size_t k = 0; k < r.size(); ++k) out[k] = tensor_or_none(r[k]);
    return out;
  });
  m.def("_link_function", &link_function);
}

}  // namespace ember::python
