#include "ember/distributed/work.h"

namespace ember::distributed {

bool Work::is_completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool Work::is_success() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ && !error_;
}

std::exception_ptr Work::exception() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

int Work::source_rank() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return source_rank_;
}

void Work::set_source_rank(int rank) {
  std::lock_guard<std::mutex> lock(mutex_);
  source_rank_ = rank;
}

bool Work::wait(Milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout > Milliseconds::zero()) {
    if (!done_.wait_for(lock, timeout, [this] { return completed_; }))
      throw DistBackendError(op_name_ + ": wait timed out after " +
                             std::to_string(timeout.count()) + "ms (the operation is still running)");
  } else {
    done_.wait(lock, [this] { return completed_; });
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (completed_) return;
    completed_ = true;
    error_ = error;
  }
  done_.notify_all();
}

}  // namespace ember::distributed
