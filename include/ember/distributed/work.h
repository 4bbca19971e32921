// Work: the handle of one collective or point-to-point operation (async_op=True in
// Python). The backend finishes it from its own thread; wait() blocks until then
// and rethrows the operation's exception.
#pragma once
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

#include "ember/distributed/store.h"
#include "ember/tensor.h"

namespace ember::distributed {

class Work {
 public:
  explicit Work(std::string op_name) : op_name_(std::move(op_name)) {}
  virtual ~Work() = default;
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;

  const std::string& op_name() const { return op_name_; }
  bool is_completed() const;
  // Completed without an exception.
  bool is_success() const;
  // The exception it finished with (null while running or on success).
  std::exception_ptr exception() const;
  // Blocks until done and rethrows its exception; with a timeout > 0, a wait that
  // lasts longer raises DistBackendError (the operation itself carries on).
  bool wait(Milliseconds timeout = Milliseconds::zero());
  // The tensors the operation wrote (its outputs).
  const std::vector<Tensor>& result() const { return outputs_; }
  // The rank a recv from any source received from (-1 before it completes).
  int source_rank() const;

  // For backends: record the outputs, then finish once (with the error, if any).
  void set_outputs(std::vector<Tensor> outputs) { outputs_ = std::move(outputs); }
  void finish(std::exception_ptr error = nullptr);
  void set_source_rank(int rank);

 private:
  std::string op_name_;
  mutable std::mutex mutex_;
  std::condition_variable done_;
  bool completed_ = false;
  std::exception_ptr error_;
  std::vector<Tensor> outputs_;
  int source_rank_ = -1;
};

using WorkPtr = std::shared_ptr<Work>;

}  // namespace ember::distributed
