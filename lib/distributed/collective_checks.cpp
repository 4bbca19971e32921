#include "distributed/collective_checks.h"

namespace ember::distributed::detail {

void check_tensor(const std::string& op, const Tensor& t, const char* what, DeviceType device,
                  const char* backend_note) {
  EMBER_CHECK_TYPE(t.defined(), op, ": the ", what, " is an undefined tensor");
  EMBER_CHECK(t.device().type == device, op, ": the ", what, " is on ", t.device().str(), "; ",
              backend_note);
}

void check_root(const std::string& op, int root, int size) {
  EMBER_CHECK(root >= 0 && root < size, op, ": invalid root rank: ", root,
              " (the group has ranks 0..", size - 1, ")");
}

void check_peer(const std::string& op, int peer, int rank, int size, bool any_allowed) {
  if (any_allowed && peer == -1) return;
  EMBER_CHECK(peer >= 0 && peer < size, op, ": invalid peer rank: ", peer,
              " (the group has ranks 0..", size - 1, ")");
  EMBER_CHECK_VALUE(peer != rank, op, ": invalid peer rank ", peer,
                    ": it should not be the rank of the current process");
}

void check_reduce_op(const std::string& op, ReduceOp reduce_op, DType dtype) {
  bool bitwise = reduce_op == ReduceOp::BAND || reduce_op == ReduceOp::BOR || reduce_op == ReduceOp::BXOR;
  EMBER_CHECK(!bitwise || is_integral(dtype, true), op, ": Cannot use ReduceOp.",
              reduce_op_name(reduce_op), " with non-integral dtype ", dtype_name(dtype));
  EMBER_CHECK(reduce_op != ReduceOp::AVG || is_floating(dtype), op,
              ": ReduceOp.AVG needs a floating-point tensor (it is SUM, then a division), got "
              "dtype ",
              dtype_name(dtype));
}

void check_like(const std::string& op, const Tensor& t, const Tensor& like, size_t index) {
  EMBER_CHECK_TYPE(t.defined(), op, ": tensor at index ", index, " is undefined");
  EMBER_CHECK_VALUE(t.dtype() == like.dtype(), op, ": invalid tensor type at index ", index,
                    " (expected ", dtype_name(like.dtype()), ", got ", dtype_name(t.dtype()), ")");
  EMBER_CHECK(t.device() == like.device(), op, ": invalid tensor device at index ", index,
              " (expected ", like.device().str(), ", got ", t.device().str(), ")");
  EMBER_CHECK(t.sizes() == like.sizes(), op, ": invalid tensor size at index ", index,
              " (expected ", shape_str(like.sizes()), ", got ", shape_str(t.sizes()), ")");
}

void check_list_size(const std::string& op, const char* what, size_t got, int expected) {
  EMBER_CHECK(got == static_cast<size_t>(expected), op, ": Incorrect ", what, " size ", got, ". ",
              what, " size should be ", expected, ", same as size of the process group.");
}

void check_numel_times(const std::string& op, const Tensor& t, const char* what, const Tensor& like,
                       const char* like_what, int64_t factor) {
  EMBER_CHECK(t.dtype() == like.dtype(), op, ": the ", what, " has dtype ",
                    dtype_name(t.dtype()), " but the ", like_what, " has dtype ",
                    dtype_name(like.dtype()));
  EMBER_CHECK(t.numel() == like.numel() * factor, op, ": the ", what, " (shape ",
              shape_str(t.sizes()), ", ", t.numel(), " elements) must hold ", factor,
              " times the elements of the ", like_what, " (shape ", shape_str(like.sizes()), ", ",
              like.numel(), " elements)");
}

}  // namespace ember::distributed::detail
