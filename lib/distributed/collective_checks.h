// Argument checks shared by the backends' collectives: every one runs before any
// communication or write, and raises torch's exception type with a message naming
// the op ("ProcessGroupGloo::all_gather"), the shapes, dtypes and devices.
#pragma once
#include <string>
#include <vector>

#include "ember/distributed/process_group.h"

namespace ember::distributed::detail {

// Defined and on a device the backend handles.
void check_tensor(const std::string& op, const Tensor& t, const char* what, DeviceType device,
                  const char* backend_note);
void check_root(const std::string& op, int root, int size);
void check_peer(const std::string& op, int peer, int rank, int size, bool any_allowed);
// The reduction is defined for the dtype (AVG: floating point; BAND/BOR/BXOR: integral).
void check_reduce_op(const std::string& op, ReduceOp reduce_op, DType dtype);
// like has t's dtype and shape ("invalid tensor size at index 2 (expected [4], got [3])").
void check_like(const std::string& op, const Tensor& t, const Tensor& like, size_t index);
void check_list_size(const std::string& op, const char* what, size_t got, int expected);
// t's dtype matches, and its numel is like's times `factor`.
void check_numel_times(const std::string& op, const Tensor& t, const char* what, const Tensor& like,
                       const char* like_what, int64_t factor);

}  // namespace ember::distributed::detail
