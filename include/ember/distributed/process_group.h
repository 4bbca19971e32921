// ProcessGroup: the collectives every backend provides, with torch.distributed's
// semantics; ranks here are ranks within the group (0..size()-1). Each call checks
// its arguments first (torch's exception types, messages naming the op, shapes,
// dtypes), so a call that raises has written nothing; then it queues the operation
// and returns its Work. Operations of one group run in the order they were called,
// which must be the same order on every rank; before each collective the ranks check
// that they agree on it (lib/distributed/collective_agreement.h), so calls that differ
// between ranks raise DistBackendError on every rank (EMBER_DISTRIBUTED_CHECKS=0: off).
//
// ProcessGroupGloo (make_gloo_process_group) is the CPU backend; an NCCL one will
// implement the same interface for CUDA tensors.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/distributed/store.h"
#include "ember/distributed/work.h"
#include "ember/tensor.h"

namespace ember::distributed {

// torch.distributed.ReduceOp's members; AVG is SUM then a division (floating point).
enum class ReduceOp : uint8_t { SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR };
const char* reduce_op_name(ReduceOp op);

// torch.distributed's default process-group timeout (30 minutes).
inline constexpr Milliseconds kDefaultProcessGroupTimeout{30 * 60 * 1000};

class ProcessGroup {
 public:
  ProcessGroup(int rank, int size) : rank_(rank), size_(size) {}
  virtual ~ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  virtual std::string backend_name() const = 0;

  virtual WorkPtr all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::SUM) = 0;
  virtual WorkPtr broadcast(const Tensor& tensor, int root) = 0;
  // The result lands in `tensor` on root; other ranks' tensors are left as they were.
  virtual WorkPtr reduce(const Tensor& tensor, int root, ReduceOp op = ReduceOp::SUM) = 0;
  // outputs: size() tensors shaped and typed like input.
  virtual WorkPtr all_gather(const std::vector<Tensor>& outputs, const Tensor& input) = 0;
  // output: size() inputs concatenated along dim 0 (or stacked: [size, *input.shape]).
  virtual WorkPtr all_gather_into_tensor(const Tensor& output, const Tensor& input) = 0;
  // input: size() outputs concatenated along dim 0 (or stacked).
  virtual WorkPtr reduce_scatter_tensor(const Tensor& output, const Tensor& input,
                                        ReduceOp op = ReduceOp::SUM) = 0;
  // inputs: size() tensors shaped and typed like output.
  virtual WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                                 ReduceOp op = ReduceOp::SUM) = 0;
  // Empty split sizes: dim 0 split evenly.
  virtual WorkPtr all_to_all_single(const Tensor& output, const Tensor& input,
                                    const std::vector<int64_t>& output_split_sizes = {},
                                    const std::vector<int64_t>& input_split_sizes = {}) = 0;
  // outputs: size() tensors on root, empty elsewhere.
  virtual WorkPtr gather(const std::vector<Tensor>& outputs, const Tensor& input, int root) = 0;
  // inputs: size() tensors on root, empty elsewhere.
  virtual WorkPtr scatter(const Tensor& output, const std::vector<Tensor>& inputs, int root) = 0;
  virtual WorkPtr send(const Tensor& tensor, int dst, int tag = 0) = 0;
  // src = -1: from any rank (Work::source_rank() says which).
  virtual WorkPtr recv(const Tensor& tensor, int src, int tag = 0) = 0;
  virtual WorkPtr barrier() = 0;

 private:
  int rank_;
  int size_;
};

using ProcessGroupPtr = std::shared_ptr<ProcessGroup>;

struct GlooOptions {
  Milliseconds timeout = kDefaultProcessGroupTimeout;
  // The network interface (GLOO_SOCKET_IFNAME) or host name to bind; empty: the
  // environment's GLOO_SOCKET_IFNAME, else this host's name when it resolves to a
  // local address, else the loopback.
  std::string interface;
  std::string hostname;
};

// True when ember was built with Gloo (libgloo-dev found at configure time).
bool is_gloo_available();
// A Gloo group of `size` processes meeting through `store` (give each group its own
// PrefixStore). Blocks until every rank has joined or the timeout passes. Raises
// RuntimeError when ember was built without Gloo.
ProcessGroupPtr make_gloo_process_group(const std::shared_ptr<Store>& store, int rank, int size,
                                        const GlooOptions& options = {});

// The default (world) group of this process, as torch.distributed keeps one.
void init_process_group(const std::string& backend, const std::shared_ptr<Store>& store, int rank,
                        int world_size, Milliseconds timeout = kDefaultProcessGroupTimeout);
bool is_initialized();
// The default group; ValueError when there is none.
ProcessGroupPtr default_process_group();
int get_rank();
int get_world_size();
void destroy_process_group();

}  // namespace ember::distributed
