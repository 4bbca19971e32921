// Fast paths in front of the pybind11 bindings of the hottest Tensor calls: the
// arithmetic operators (a + b, a * 2.0, a @ b, a += b), the comparisons (a < b), indexing (x[i]), the no-argument
// elementwise and reduction methods (x.relu(), x.sum()) and view/reshape with int
// sizes.
//
// Why: a pybind11 method call builds an argument vector, tries each overload in
// turn and converts every argument through its caster: with the Tensor itself
// wrapped cheaply (tensor_object.h), that is most of what is left of a small op's
// time from Python (docs/PERF.md).
// These entry points are plain CPython calls (a number slot, a mapping slot, a
// METH_FASTCALL method descriptor) that recognize the common argument shapes
// directly and call the same C++ function the binding calls. Anything they do not
// recognize (keywords, other argument types, a subclass that overrides the
// operator) goes to the pybind11 binding, unchanged, which stays the one
// definition of the call's behaviour and errors.
#include <array>
#include <functional>
#include <utility>

#include <pybind11/detail/exception_translation.h>

#include "bindings.h"

namespace ember::python {

namespace {

// The Tensor held by an ember.Tensor (or a subclass instance), or nullptr for anything else.
const Tensor* tensor_of(PyObject* o) { return is_tensor(o) ? &unwrap_tensor(o) : nullptr; }

// Runs f, turning a C++ exception into the Python one pybind11 would raise.
template <typename F>
PyObject* guarded(F&& f) {
  try {
    return f();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

// A Python int (exactly int: bool and int subclasses are left to the binding) that
// fits in int64. False otherwise, also on overflow: the binding raises that error.
bool exact_int64(PyObject* o, int64_t& out) {
  if (!PyLong_CheckExact(o)) return false;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  out = static_cast<int64_t>(v);
  return true;
}

// A Python int or float, read as TensorArg reads a number.
bool number_of(PyObject* o, Scalar& out) {
  if (PyFloat_CheckExact(o)) {
    out = Scalar(PyFloat_AS_DOUBLE(o));
    return true;
  }
  int64_t i = 0;
  if (!exact_int64(o, i)) return false;
  out = Scalar(i);
  return true;
}

// ---- the arithmetic operators (number slots) ----
//
// CPython calls a type's slot for a + b when either operand's type has it, with the
// operands in their written order, and once only when both have the same slot; the
// slot then tries a.__add__(b) and b.__radd__(a), as CPython's own slot for a
// Python-defined __add__ does. Those methods are the pybind11 bindings.

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);

struct BinarySlot {
  BinaryFn fn;
  const char* name;      // "__add__"
  const char* reflected; // "__radd__"
  bool numbers;          // a Python number operand is taken (not for @)
  PyObject* name_str = nullptr;
  PyObject* reflected_str = nullptr;
};

Tensor add_fn(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor sub_fn(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor mul_fn(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor div_fn(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor matmul_fn(const Tensor& a, const Tensor& b) { return matmul(a, b); }

enum SlotIndex { kAdd, kSub, kMul, kDiv, kMatmul, kNumSlots };
std::array<BinarySlot, kNumSlots> g_slots = {{{&add_fn, "__add__", "__radd__", true},
                                              {&sub_fn, "__sub__", "__rsub__", true},
                                              {&mul_fn, "__mul__", "__rmul__", true},
                                              {&div_fn, "__truediv__", "__rtruediv__", true},
                                              {&matmul_fn, "__matmul__", "__rmatmul__", false}}};

// The bindings' protocol for operands the fast path does not take.
PyObject* binary_protocol(const BinarySlot& slot, PyObject* a, PyObject* b, bool a_tensor,
                          bool b_tensor) {
  if (a_tensor) {
    PyObject* r = PyObject_CallMethodOneArg(a, slot.name_str, b);
    if (r != Py_NotImplemented) return r;
    Py_DECREF(r);
  }
  if (b_tensor && Py_TYPE(a) != Py_TYPE(b)) return PyObject_CallMethodOneArg(b, slot.reflected_str, a);
  Py_RETURN_NOTIMPLEMENTED;
}

template <int I>
PyObject* binary_slot(PyObject* a, PyObject* b) {
  const BinarySlot& slot = g_slots[I];
  const Tensor* x = tensor_of(a);
  const Tensor* y = tensor_of(b);
  Scalar n;
  if (x && y) return guarded([&] { return wrap_tensor(slot.fn(*x, *y)); });
  if (slot.numbers && x && number_of(b, n))
    return guarded([&] { return wrap_tensor(slot.fn(*x, wrap_number(n))); });
  if (slot.numbers && y && number_of(a, n))
    return guarded([&] { return wrap_tensor(slot.fn(wrap_number(n), *y)); });
  return binary_protocol(slot, a, b, x != nullptr, y != nullptr);
}

// ---- in-place operators (a += b) ----
//
// The slot gets (a, b) with a the left operand; a tensor a takes a tensor or a
// Python number b, is written in place, and is itself the result. Anything else goes
// to the binding's __iadd__, then to CPython's a = a + b when that declines.

using InplaceFn = void (*)(Tensor&, const Tensor&);

struct InplaceSlot {
  InplaceFn fn;
  const char* name;  // "__iadd__"
  PyObject* name_str = nullptr;
};

void iadd_fn(Tensor& a, const Tensor& b) { add_(a, b); }
void isub_fn(Tensor& a, const Tensor& b) { sub_(a, b); }
void imul_fn(Tensor& a, const Tensor& b) { mul_(a, b); }
void idiv_fn(Tensor& a, const Tensor& b) { div_(a, b); }

std::array<InplaceSlot, 4> g_inplace_slots = {{{&iadd_fn, "__iadd__"}, {&isub_fn, "__isub__"},
                                               {&imul_fn, "__imul__"}, {&idiv_fn, "__itruediv__"}}};

template <int I>
PyObject* inplace_slot(PyObject* a, PyObject* b) {
  const InplaceSlot& slot = g_inplace_slots[I];
  const Tensor* y = tensor_of(b);
  Scalar n;
  if (is_tensor(a) && (y || number_of(b, n))) {
    return guarded([&]() -> PyObject* {
      Tensor other = y ? *y : wrap_number(n);  // a copy: b may be a itself
      slot.fn(unwrap_tensor(a), other);
      Py_INCREF(a);
      return a;
    });
  }
  // CPython's own slot for a Python-defined __iadd__ does this lookup.
  PyObject* method = PyObject_GetAttr(a, slot.name_str);
  if (!method) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  PyObject* r = PyObject_CallOneArg(method, b);
  Py_DECREF(method);
  return r;
}

// ---- comparisons (a < b, a == b) ----
//
// CPython swaps the operands itself for a reflected comparison (2 < a asks a > 2),
// so the slot always has a tensor on the left when it handles the call.

richcmpfunc g_richcompare_fallback = nullptr;

PyObject* richcompare_slot(PyObject* a, PyObject* b, int op) {
  const Tensor* x = tensor_of(a);
  const Tensor* y = tensor_of(b);
  Scalar n;
  if (x && (y || number_of(b, n))) {
    return guarded([&]() -> PyObject* {
      Tensor other = y ? *y : wrap_number(n);
      switch (op) {
        case Py_LT: return wrap_tensor(lt(*x, other));
        case Py_LE: return wrap_tensor(le(*x, other));
        case Py_EQ: return wrap_tensor(eq(*x, other));
        case Py_NE: return wrap_tensor(ne(*x, other));
        case Py_GT: return wrap_tensor(gt(*x, other));
        default: return wrap_tensor(ge(*x, other));
      }
    });
  }
  return g_richcompare_fallback(a, b, op);
}

// ---- indexing ----

binaryfunc g_getitem_fallback = nullptr;

PyObject* getitem_slot(PyObject* self, PyObject* key) {
  const Tensor* t = tensor_of(self);
  if (!t) return g_getitem_fallback(self, key);
  return guarded([&] { return wrap_tensor(tensor_getitem(*t, py::handle(key))); });
}

// ---- methods ----
//
// A fast method recognizes its positional arguments or declines (returns false),
// and the call goes to the binding it replaced.
using FastFn = std::function<bool(const Tensor& self, PyObject* const* args, Py_ssize_t nargs,
                                  Tensor& out)>;

struct FastMethod {
  std::string name;
  std::string doc;  // the binding's, so help(x.sum) still shows its signatures
  FastFn fn;
  PyObject* fallback = nullptr;  // the pybind11 function, called as fallback(self, *args, **kw)
  PyMethodDef def{};
};

// Method descriptors carry no data of their own, so each fast method gets its own
// C entry point: trampoline<I> serves g_methods[I].
constexpr size_t kMaxFastMethods = 256;
std::array<FastMethod, kMaxFastMethods> g_methods;
size_t g_num_methods = 0;

PyObject* call_method(const FastMethod& m, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwnames) {
  const Tensor* t = tensor_of(self);
  if (t && !kwnames) {
    Tensor out;
    bool handled = false;
    PyObject* result = guarded([&]() -> PyObject* {
      handled = m.fn(*t, args, nargs, out);
      return handled ? wrap_tensor(std::move(out)) : nullptr;
    });
    if (handled || PyErr_Occurred()) return result;
  }
  // The binding, with self in front of the positional and keyword arguments.
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  SmallVector<PyObject*, 8> stack;
  stack.push_back(self);
  for (Py_ssize_t i = 0; i < nargs + nkw; ++i) stack.push_back(args[i]);
  return PyObject_Vectorcall(m.fallback, stack.data(), nargs + 1, kwnames);
}

template <size_t I>
PyObject* trampoline(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return call_method(g_methods[I], self, args, nargs, kwnames);
}

// METH_FASTCALL | METH_KEYWORDS (named PyCFunctionFastWithKeywords from Python 3.13).
using FastCallFn = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);

template <size_t... I>
constexpr std::array<FastCallFn, sizeof...(I)> make_trampolines(
    std::index_sequence<I...>) {
  return {&trampoline<I>...};
}
constexpr auto kTrampolines = make_trampolines(std::make_index_sequence<kMaxFastMethods>());

std::vector<std::pair<std::string, FastFn>>& pending_methods() {
  static std::vector<std::pair<std::string, FastFn>> methods;
  return methods;
}

// Sizes given as ints (x.view(8, 4)); anything else declines.
bool int_sizes(PyObject* const* args, Py_ssize_t nargs, IntList& sizes) {
  if (nargs == 0) return false;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    int64_t size = 0;
    if (!exact_int64(args[i], size)) return false;
    sizes.push_back(size);
  }
  return true;
}

}  // namespace

void add_fast_unary_method(const char* name, Tensor (*fn)(const Tensor&)) {
  pending_methods().emplace_back(name, [fn](const Tensor& self, PyObject* const*, Py_ssize_t nargs,
                                            Tensor& out) {
    if (nargs != 0) return false;
    out = fn(self);
    return true;
  });
}

void install_fast_calls(TensorClass& cls) {
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());

  PyNumberMethods* num = type->tp_as_number;
  binaryfunc* slots[kNumSlots] = {&num->nb_add, &num->nb_subtract, &num->nb_multiply,
                                  &num->nb_true_divide, &num->nb_matrix_multiply};
  binaryfunc fast[kNumSlots] = {&binary_slot<kAdd>, &binary_slot<kSub>, &binary_slot<kMul>,
                                &binary_slot<kDiv>, &binary_slot<kMatmul>};
  for (int i = 0; i < kNumSlots; ++i) {
    EMBER_CHECK(*slots[i] != nullptr, "install_fast_calls: Tensor has no ", g_slots[i].name);
    g_slots[i].name_str = PyUnicode_InternFromString(g_slots[i].name);
    g_slots[i].reflected_str = PyUnicode_InternFromString(g_slots[i].reflected);
    *slots[i] = fast[i];
  }
  binaryfunc* inplace[4] = {&num->nb_inplace_add, &num->nb_inplace_subtract,
                            &num->nb_inplace_multiply, &num->nb_inplace_true_divide};
  binaryfunc fast_inplace[4] = {&inplace_slot<0>, &inplace_slot<1>, &inplace_slot<2>,
                                &inplace_slot<3>};
  for (int i = 0; i < 4; ++i) {
    EMBER_CHECK(*inplace[i] != nullptr, "install_fast_calls: Tensor has no ", g_inplace_slots[i].name);
    g_inplace_slots[i].name_str = PyUnicode_InternFromString(g_inplace_slots[i].name);
    *inplace[i] = fast_inplace[i];
  }
  g_richcompare_fallback = type->tp_richcompare;
  EMBER_CHECK(g_richcompare_fallback != nullptr, "install_fast_calls: Tensor has no comparisons");
  type->tp_richcompare = &richcompare_slot;

  g_getitem_fallback = type->tp_as_mapping->mp_subscript;
  EMBER_CHECK(g_getitem_fallback != nullptr, "install_fast_calls: Tensor has no __getitem__");
  type->tp_as_mapping->mp_subscript = &getitem_slot;

  add_fast_unary_method("sum", [](const Tensor& x) { return sum(x, {}, false, std::nullopt); });
  add_fast_unary_method("mean", [](const Tensor& x) { return mean(x, {}, false, std::nullopt); });
  for (const char* name : {"view", "reshape"}) {
    bool is_view = name[0] == 'v';
    pending_methods().emplace_back(name, [is_view](const Tensor& self, PyObject* const* args,
                                                   Py_ssize_t nargs, Tensor& out) {
      IntList sizes;
      if (!int_sizes(args, nargs, sizes)) return false;
      out = is_view ? self.view(sizes) : self.reshape(sizes);
      return true;
    });
  }

  for (auto& [name, fn] : pending_methods()) {
    EMBER_CHECK(g_num_methods < kMaxFastMethods, "install_fast_calls: more than ",
                kMaxFastMethods, " fast methods");
    PyObject* original = PyDict_GetItemString(type->tp_dict, name.c_str());
    EMBER_CHECK(original != nullptr, "install_fast_calls: Tensor has no method ", name);
    FastMethod& m = g_methods[g_num_methods];
    m.name = name;
    m.fn = std::move(fn);
    // The binding is stored as an instance method; its function is what we call.
    m.fallback = PyInstanceMethod_Check(original) ? PyInstanceMethod_GET_FUNCTION(original) : original;
    Py_INCREF(m.fallback);
    py::object doc = py::getattr(py::handle(m.fallback), "__doc__", py::none());
    m.doc = doc.is_none() ? std::string() : doc.cast<std::string>();
    m.def = PyMethodDef{m.name.c_str(), reinterpret_cast<PyCFunction>(kTrampolines[g_num_methods]),
                        METH_FASTCALL | METH_KEYWORDS, m.doc.empty() ? nullptr : m.doc.c_str()};
    py::object descr = py::reinterpret_steal<py::object>(PyDescr_NewMethod(type, &m.def));
    if (!descr) throw py::error_already_set();
    if (PyDict_SetItemString(type->tp_dict, name.c_str(), descr.ptr()) != 0)
      throw py::error_already_set();
    ++g_num_methods;
  }
  pending_methods().clear();
  PyType_Modified(type);
}

}  // namespace ember::python
