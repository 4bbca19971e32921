// Python bindings of autograd: Tensor.backward/.grad/.grad_fn/hooks, grad mode,
// ember.autograd.grad/backward, and the C++ side of ember.autograd.Function.
#include <cstdio>
#include <deque>
#include <string>
#include "autograd/autograd_meta.h"
#include "autograd/view_tracking.h"
#include "bindings.h"
#include "ember/autograd.h"
#include "ember/autograd_function.h"

namespace ember::python {

void bind_autograd_debug(py::module_& m);  // autograd_debug.cpp

namespace {

using autograd::Node;

TensorList tensors_or_none(py::handle seq) {
  TensorList out;
  if (seq.is_none()) return out;
  if (is_tensor(seq)) return {seq.cast<Tensor>()};
  for (py::handle h : seq) out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  return out;
}

py::object tensor_or_none(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

std::string type_name(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")); }

// A Python object held by a C++ node: dropped with the GIL held, since the
// node may die on a thread that does not hold it (backward releases the GIL).
struct PyObjectRef {
  explicit PyObjectRef(py::object o) : obj(std::move(o)) {}
  ~PyObjectRef() {
    py::gil_scoped_acquire gil;
    obj = py::object();
  }
  py::object obj;
};

// How the node of a Python Function runs backward: cls.backward(ctx, *grads).
autograd::FunctionBackward python_backward(py::object cls, py::object ctx) {
  auto fn = std::make_shared<PyObjectRef>(cls.attr("backward"));
  auto context = std::make_shared<PyObjectRef>(std::move(ctx));
  return [fn, context](TensorList&& grads) {
    py::gil_scoped_acquire gil;
    py::tuple args(grads.size() + 1);
    args[0] = context->obj;
    for (size_t i = 0; i < grads.size(); ++i) args[i + 1] = tensor_or_none(grads[i]);
    py::object result = fn->obj(*args);
    bool many = py::isinstance<py::tuple>(result) || py::isinstance<py::list>(result);
    py::tuple items = many ? py::tuple(result) : py::make_tuple(result);
    TensorList out;
    for (size_t i = 0; i < items.size(); ++i) {
      py::handle g = items[i];
      if (!g.is_none() && !is_tensor(g))
        throw py::type_error(py::str(fn->obj.attr("__qualname__")).cast<std::string>() +
                             " returned a " + type_name(g) + " as gradient " +
                             std::to_string(i) + "; expected a Tensor or None");
      out.push_back(g.is_none() ? Tensor() : g.cast<Tensor>());
    }
    return out;
  };
}

// Tensors given to ctx.save_for_backward / mark_dirty / mark_non_differentiable.
TensorList tensor_args(py::args args, const char* method) {
  TensorList out;
  for (py::handle h : args) {
    if (!h.is_none() && !is_tensor(h))
      throw py::type_error(std::string(method) + " can only take tensors, but argument " +
                           type_name(h) + " was given");
    out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  }
  return out;
}

TensorList tensors_among(py::handle seq) {
  TensorList out;
  for (py::handle h : seq) out.push_back(is_tensor(h) ? h.cast<Tensor>() : Tensor());
  return out;
}

// Links the outputs of Function.forward into the graph (called by Function.apply).
py::object link_function(py::object cls, py::object ctx, py::tuple args, py::object outputs) {
  bool is_tuple = py::isinstance<py::tuple>(outputs);
  py::tuple outs = is_tuple ? outputs.cast<py::tuple>() : py::make_tuple(outputs);
  std::string name = py::str(cls.attr("__name__")).cast<std::string>() + "Backward";
  TensorList linked = detail::link_function(
      ctx.cast<std::shared_ptr<autograd::AutogradContext>>(), tensors_among(args),
      tensors_among(outs), std::move(name), python_backward(cls, ctx));
  py::tuple result(outs.size());
  for (size_t j = 0; j < outs.size(); ++j) {
    // The very object comes back when the tensor did (a dirty input, a new output).
    bool same = is_tensor(outs[j]) && outs[j].cast<Tensor>().is_same(linked[j]);
    result[j] = linked[j].defined() && !same ? py::cast(linked[j]) : py::object(outs[j]);
  }
  if (is_tuple) return std::move(result);
  return result[0];
}

void bind_function_ctx(py::module_& m) {
  using autograd::AutogradContext;
  py::class_<AutogradContext, std::shared_ptr<AutogradContext>>(m, "_FunctionCtx",
                                                                py::dynamic_attr())
      .def(py::init<>())
      .def("save_for_backward", [](AutogradContext& c, py::args tensors) {
        c.save_for_backward(tensor_args(tensors, "save_for_backward"));
      })
      .def_property_readonly("saved_tensors", [](const AutogradContext& c) {
        TensorList saved = c.get_saved_variables();
        py::tuple out(saved.size());
        for (size_t i = 0; i < saved.size(); ++i) out[i] = tensor_or_none(saved[i]);
        return out;
      })
      .def("mark_dirty", [](AutogradContext& c, py::args tensors) {
        c.mark_dirty(tensor_args(tensors, "mark_dirty"));
      })
      .def("mark_non_differentiable", [](AutogradContext& c, py::args tensors) {
        c.mark_non_differentiable(tensor_args(tensors, "mark_non_differentiable"));
      })
      .def("set_materialize_grads", &AutogradContext::set_materialize_grads)
      .def_property_readonly("needs_input_grad", [](const AutogradContext& c) {
        py::tuple out(c.num_inputs());
        for (size_t i = 0; i < c.num_inputs(); ++i) out[i] = py::bool_(c.needs_input_grad(i));
        return out;
      })
      .def("_set_inputs",
           [](AutogradContext& c, py::tuple args) { c.set_inputs(tensors_among(args)); });
}

}  // namespace

// A node as a Python object whose class is named after it (MulBackward0, ...),
// as PyTorch's are: `type(y.grad_fn).__name__` and isinstance checks against
// ember._C.Node both work. The classes are empty subclasses of Node, made once
// per name, with Node's layout so that the object's class can be switched.
static py::object node_object(const std::shared_ptr<Node>& fn) {
  if (!fn) return py::none();
  py::object obj = py::cast(fn);
  static py::dict* classes = new py::dict();  // lives as long as the interpreter
  py::str name(fn->name());
  if (!classes->contains(name)) {
    // Made with the C API rather than type() so that it inherits Node's layout,
    // deallocator and flags exactly (a class made by type() adds GC support).
    static std::deque<std::string> type_names;  // tp_name must outlive the type
    type_names.push_back("ember.autograd.graph." + fn->name());
    PyType_Slot no_slots[] = {{0, nullptr}};
    PyType_Spec spec{type_names.back().c_str(), 0, 0, Py_TPFLAGS_DEFAULT, no_slots};
    py::tuple bases = py::make_tuple(py::type::of<Node>());
    PyObject* subclass = PyType_FromSpecWithBases(&spec, bases.ptr());
    if (!subclass) throw py::error_already_set();
    (*classes)[name] = py::reinterpret_steal<py::object>(subclass);
  }
  obj.attr("__class__") = (*classes)[name];
  return obj;
}

void bind_autograd(py::module_& m, TensorClass& cls) {
  m.def("is_grad_enabled", &is_grad_enabled);
  m.def("_set_grad_enabled", &set_grad_enabled);
  m.def("is_inference_mode_enabled", &is_inference_mode_enabled);
  m.def("_set_inference_mode_enabled", &set_inference_mode_enabled);

  py::class_<Node, std::shared_ptr<Node>>(m, "Node")
      .def("name", &Node::name)
      .def_property_readonly("next_functions", [](const Node& n) {
        py::tuple out(n.next_edges().size());
        for (size_t i = 0; i < n.next_edges().size(); ++i) {
          const auto& e = n.next_edges()[i];
          out[i] = py::make_tuple(node_object(e.function), e.input_nr);
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
      .def("__repr__", [](py::handle self) {
        char address[32];
        std::snprintf(address, sizeof(address), "%p", static_cast<void*>(self.ptr()));
        return "<" + self.cast<const Node&>().name() + " object at " + address + ">";
      });

  // A view requires grad when its base does (PyTorch's DifferentiableViewMeta).
  cls.def_property("requires_grad", [](const Tensor& t) {
        const autograd::ViewInfo* view = autograd::view_info(t);
        return t.requires_grad() || (view && view->base.requires_grad());
      }, [](Tensor& t, py::handle r) {
        // PyTorch's setter takes only a bool, and says so with a RuntimeError.
        if (!PyBool_Check(r.ptr())) throw Error("requires_grad must be a bool");
        t.requires_grad_(r.ptr() == Py_True);
      })
      .def("requires_grad_", [](py::object self, bool r) {
        tensor_ref(self).requires_grad_(r);
        return self;
      }, py::arg("requires_grad") = true)
      .def_property("grad", [](const Tensor& t) {
        // PyTorch's warning: a non-leaf's .grad stays None unless retain_grad() was called.
        if (!t.is_leaf() && !t.retains_grad() &&
            PyErr_WarnEx(PyExc_UserWarning,
                         "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                         "Its .grad attribute won't be populated during autograd.backward(). If you "
                         "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                         ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                         "mistake, make sure you access the leaf Tensor instead.", 1) < 0)
          throw py::error_already_set();
        return tensor_or_none(t.grad());
      },
                    [](Tensor& t, py::object g) {
                      if (!g.is_none() && !is_tensor(g))
                        throw TypeError(detail::str(
                            "assigned grad expected to be a Tensor or None but got grad of type ",
                            std::string(py::str(py::type::handle_of(g).attr("__name__")))));
                      t.set_grad(g.is_none() ? Tensor() : g.cast<Tensor>());
                    })
      .def_property_readonly("grad_fn", [](const Tensor& t) { return node_object(t.grad_fn()); })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def("is_inference", &Tensor::is_inference)
      .def("_is_view", &Tensor::is_view)
      .def_property_readonly("_base", [](const Tensor& t) { return tensor_or_none(t._base()); })
      .def_property_readonly("output_nr", &Tensor::output_nr)
      .def("backward", [](const Tensor& t, py::object gradient, std::optional<bool> retain_graph,
                          bool create_graph, py::object inputs) {
        Tensor g = gradient.is_none() ? Tensor() : gradient.cast<Tensor>();
        TensorList in = tensors_or_none(inputs);
        if (!inputs.is_none() && in.empty())
          throw Error("`inputs` argument to `backward()` cannot be empty.");
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
        tensor_ref(self).detach_();
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
  bind_function_ctx(m);
  bind_autograd_debug(m);
}

}  // namespace ember::python
