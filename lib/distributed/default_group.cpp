// The default (world) process group of this process, and the names of ReduceOp.
#include <mutex>

#include "ember/distributed/process_group.h"

namespace ember::distributed {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
    case ReduceOp::BAND: return "BAND";
    case ReduceOp::BOR: return "BOR";
    case ReduceOp::BXOR: return "BXOR";
  }
  return "?";
}

namespace {
std::mutex default_group_mutex;
ProcessGroupPtr default_group;
// Each initialization meets under its own prefix, so a group made again after
// destroy_process_group with the same store never sees the last one's keys.
int initializations = 0;
}  // namespace

void init_process_group(const std::string& backend, const std::shared_ptr<Store>& store, int rank,
                        int world_size, Milliseconds timeout) {
  EMBER_CHECK_VALUE(store != nullptr, "init_process_group: the store is None");
  EMBER_CHECK_VALUE(world_size > 0, "init_process_group: world_size must be positive, got ",
                    world_size);
  EMBER_CHECK_VALUE(rank >= 0 && rank < world_size, "init_process_group: rank ", rank,
                    " is out of range for world_size ", world_size);
  {
    std::lock_guard<std::mutex> lock(default_group_mutex);
    EMBER_CHECK_VALUE(!default_group, "trying to initialize the default process group twice!");
  }
  ProcessGroupPtr group;
  std::string prefix;
  {
    std::lock_guard<std::mutex> lock(default_group_mutex);
    prefix = "default_pg/" + std::to_string(initializations++);
  }
  if (backend == "gloo") {
    GlooOptions options;
    options.timeout = timeout;
    group = make_gloo_process_group(std::make_shared<PrefixStore>(prefix, store), rank,
                                    world_size, options);
  } else if (backend == "nccl") {
    throw Error("init_process_group: ember was built without NCCL; use backend=\"gloo\"");
  } else {
    throw ValueError("init_process_group: unknown backend '" + backend + "' (ember has \"gloo\")");
  }
  std::lock_guard<std::mutex> lock(default_group_mutex);
  EMBER_CHECK_VALUE(!default_group, "trying to initialize the default process group twice!");
  default_group = std::move(group);
}

bool is_initialized() {
  std::lock_guard<std::mutex> lock(default_group_mutex);
  return default_group != nullptr;
}

ProcessGroupPtr default_process_group() {
  std::lock_guard<std::mutex> lock(default_group_mutex);
  EMBER_CHECK_VALUE(default_group,
                    "Default process group has not been initialized, please make sure to call "
                    "init_process_group.");
  return default_group;
}

int get_rank() { return default_process_group()->rank(); }
int get_world_size() { return default_process_group()->size(); }

void destroy_process_group() {
  ProcessGroupPtr group;
  {
    std::lock_guard<std::mutex> lock(default_group_mutex);
    group = std::move(default_group);
    default_group = nullptr;
  }
  // `group` is released here, outside the lock: its worker finishes queued work first.
}

}  // namespace ember::distributed
