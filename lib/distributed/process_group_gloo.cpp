// ProcessGroupGloo: the collectives on CPU tensors over a Gloo context. Each call
// checks its arguments (collective_checks.h), stages its tensors (a contiguous
// buffer: the tensor itself when it already is contiguous, else a copy that is
// written back when the operation finishes), then queues the operation on the
// group's worker thread. Point-to-point sends and receives are posted at once and
// waited for on a second thread, so a recv never holds up the collectives.
#ifdef EMBER_WITH_GLOO
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/scatter.h>
#include <gloo/transport/unbound_buffer.h>

#include <atomic>
#include <cstring>
#include <numeric>
#include <optional>
#include <set>

#include "distributed/call_exchange.h"
#include "distributed/collective_agreement.h"
#include "distributed/collective_checks.h"
#include "distributed/gloo_rendezvous.h"
#include "distributed/reduce_kernels.h"
#include "distributed/task_queue.h"
#include "ember/autograd.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"

namespace ember::distributed {

namespace {

const char* const kDeviceNote =
    "ember's Gloo backend handles CPU tensors only (move it with .cpu(); NCCL is not built yet)";
// Point-to-point slots, apart from the collectives' (torch's kSendRecvSlotPrefix).
constexpr uint64_t kSendRecvSlotPrefix = 0x80;

uint64_t p2p_slot(int tag) { return (kSendRecvSlotPrefix << 32) | static_cast<uint32_t>(tag); }

using detail::CallRecord;
using detail::CollectiveKind;

CallRecord record_of(CollectiveKind kind, const Tensor& t, int64_t numel, int root = -1,
                     int reduce_op = -1) {
  CallRecord r;
  r.kind = kind;
  r.dtype = static_cast<int64_t>(t.dtype());
  r.numel = numel;
  r.root = root;
  r.reduce_op = reduce_op;
  return r;
}

// A contiguous buffer standing for a caller's tensor.
struct Staged {
  Tensor user;
  Tensor buffer;
  uint8_t* data() const { return static_cast<uint8_t*>(buffer.data_ptr()); }
  size_t nbytes() const { return static_cast<size_t>(buffer.nbytes()); }
  // Makes the result visible in the caller's tensor.
  void write_back() const {
    if (!buffer.is_same(user)) {
      NoGradGuard no_grad;
      Tensor target = user;  // a handle: copy_ writes the caller's memory
      target.copy_(buffer);
    } else {
      user.bump_version();
    }
  }
};

// keep_values: the operation reads the tensor too (all_reduce), not only writes it.
Staged stage(const Tensor& t, bool keep_values) {
  if (t.is_contiguous()) return {t, t};
  NoGradGuard no_grad;
  return {t, keep_values ? t.contiguous() : empty(t.sizes(), TensorOptions(t.dtype()))};
}

// A contiguous copy the operation may overwrite without touching t.
Tensor private_copy(const Tensor& t) {
  NoGradGuard no_grad;
  Tensor copy = empty(t.sizes(), TensorOptions(t.dtype()));
  copy.copy_(t);
  return copy;
}

// Writes flat[offset, offset + dst.numel()) into dst.
void write_chunk(const Tensor& dst, const Tensor& flat, int64_t offset) {
  size_t bytes = static_cast<size_t>(dst.nbytes());
  const uint8_t* src = static_cast<const uint8_t*>(flat.data_ptr()) + offset * flat.element_size();
  if (dst.is_contiguous()) {
    if (bytes) std::memcpy(dst.data_ptr(), src, bytes);
    dst.bump_version();
    return;
  }
  NoGradGuard no_grad;
  Tensor target = dst;
  target.copy_(flat.narrow(0, offset, dst.numel()).view(IntList(dst.sizes().begin(), dst.sizes().end())));
}

// Calls f with a value of the unsigned type as wide as one element: Gloo's reduction
// algorithms take the element size from their template argument.
template <typename F>
void with_element_width(size_t itemsize, F&& f) {
  switch (itemsize) {
    case 1: f(uint8_t{}); return;
    case 2: f(uint16_t{}); return;
    case 4: f(uint32_t{}); return;
    case 8: f(uint64_t{}); return;
  }
  throw Error("ProcessGroupGloo: unsupported element size " + std::to_string(itemsize));
}

class ProcessGroupGloo : public ProcessGroup {
 public:
  ProcessGroupGloo(std::shared_ptr<gloo::Context> context, int rank, int size, Milliseconds timeout)
      : ProcessGroup(rank, size), context_(std::move(context)), timeout_(timeout) {
    if (detail::agreement_checks_enabled() && size > 1)
      exchange_ = std::make_shared<detail::CallExchange>(context_, timeout);
  }

  ~ProcessGroupGloo() override {
    // Sends and receives still waiting would wait out the timeout: abort them. The
    // queues then finish their work before the context goes.
    {
      std::lock_guard<std::mutex> lock(pending_mutex_);
      for (const auto& buffer : pending_p2p_) {
        buffer->abortWaitSend();
        buffer->abortWaitRecv();
      }
    }
    p2p_.reset();
    worker_.reset();
  }

  std::string backend_name() const override { return "gloo"; }

  WorkPtr all_reduce(const Tensor& tensor, ReduceOp op) override {
    const std::string name = "ProcessGroupGloo::all_reduce";
    detail::check_tensor(name, tensor, "tensor", DeviceType::CPU, kDeviceNote);
    detail::check_reduce_op(name, op, tensor.dtype());
    Staged s = stage(tensor, true);
    auto reduce = reduce_step(s.buffer, op);
    auto record = record_of(CollectiveKind::ALL_REDUCE, tensor, tensor.numel(), -1, int(op));
    if (!exchange_)
      return enqueue(name, {tensor}, record, [s, reduce] {
        reduce();
        s.write_back();
      });
    // Checked: data that fits travels with the call record (call_exchange.h), and
    // each rank reduces every rank's data in rank order, so all get the same bits.
    auto exchange = exchange_;
    auto words = detail::encode_record(record, size());
    auto kernel = detail::reduce_kernel(tensor.dtype(), op);
    int me = rank(), n = size();
    auto checked = [name, s, reduce, exchange, words, kernel, op, me, n] {
      if (s.nbytes() > exchange->inline_capacity()) {
        exchange->exchange(name, words, nullptr, 0);
        exchange->release();
        reduce();
      } else {
        exchange->exchange(name, words, s.data(), s.nbytes());
        std::vector<void*> inputs(n);
        for (int r = 0; r < n; ++r) inputs[r] = r == me ? s.data() : exchange->peer_payload(r);
        size_t count = static_cast<size_t>(s.buffer.numel());
        detail::reduce_in_rank_order(kernel, s.data(), inputs, me, count);
        exchange->release();
        if (op == ReduceOp::AVG && count)
          detail::divide_in_place(s.data(), s.buffer.dtype(), count, n);
      }
      s.write_back();
    };
    return enqueue(name, {tensor}, std::nullopt, checked);
  }

  WorkPtr broadcast(const Tensor& tensor, int root) override {
    const std::string name = "ProcessGroupGloo::broadcast";
    detail::check_tensor(name, tensor, "tensor", DeviceType::CPU, kDeviceNote);
    detail::check_root(name, root, size());
    bool is_root = root == rank();
    Staged s = stage(tensor, is_root);
    uint32_t tag = next_tag();
    auto context = context_;
    auto record = record_of(CollectiveKind::BROADCAST, tensor, tensor.numel(), root);
    return enqueue(name, {tensor}, record, [s, tag, context, root, is_root] {
      if (s.nbytes() == 0) return;
      gloo::BroadcastOptions opts(context);
      if (is_root) opts.setInput<uint8_t>(s.data(), s.nbytes());
      opts.setOutput<uint8_t>(s.data(), s.nbytes());
      opts.setRoot(root);
      opts.setTag(tag);
      gloo::broadcast(opts);
      if (!is_root) s.write_back();
    });
  }

  WorkPtr reduce(const Tensor& tensor, int root, ReduceOp op) override {
    const std::string name = "ProcessGroupGloo::reduce";
    detail::check_tensor(name, tensor, "tensor", DeviceType::CPU, kDeviceNote);
    detail::check_root(name, root, size());
    detail::check_reduce_op(name, op, tensor.dtype());
    bool is_root = root == rank();
    Staged s = stage(tensor, true);
    // Gloo's reduce leaves partial sums in every rank's output: other ranks reduce
    // into scratch, so their tensors stay as they were (torch's documented result).
    Tensor out = is_root ? s.buffer : empty(tensor.sizes(), TensorOptions(tensor.dtype()));
    uint32_t tag = next_tag();
    auto context = context_;
    auto kernel = detail::reduce_kernel(tensor.dtype(), op);
    int n = size();
    auto record = record_of(CollectiveKind::REDUCE, tensor, tensor.numel(), root, int(op));
    return enqueue(name, {tensor}, record, [s, out, tag, context, root, is_root, kernel, op, n] {
      size_t count = static_cast<size_t>(s.buffer.numel());
      if (count == 0) return;
      gloo::ReduceOptions opts(context);
      with_element_width(s.buffer.element_size(), [&](auto width) {
        using T = decltype(width);
        opts.setInput<T>(static_cast<T*>(s.buffer.data_ptr()), count);
        opts.setOutput<T>(static_cast<T*>(out.data_ptr()), count);
      });
      opts.setRoot(root);
      opts.setReduceFunction(kernel);
      opts.setTag(tag);
      gloo::reduce(opts);
      if (is_root) {
        if (op == ReduceOp::AVG) detail::divide_in_place(out.data_ptr(), out.dtype(), count, n);
        s.write_back();
      }
    });
  }

  WorkPtr all_gather(const std::vector<Tensor>& outputs, const Tensor& input) override {
    const std::string name = "ProcessGroupGloo::allgather";
    detail::check_tensor(name, input, "input", DeviceType::CPU, kDeviceNote);
    EMBER_CHECK(outputs.size() == static_cast<size_t>(size()), name,
                ": invalid output tensor list at index 0 (expected length ", size(), ", got ",
                outputs.size(), ")");
    for (size_t i = 0; i < outputs.size(); ++i) detail::check_like(name, outputs[i], input, i);
    Tensor in = input.is_contiguous() ? input : private_copy(input);
    Tensor flat = empty({input.numel() * size()}, TensorOptions(input.dtype()));
    uint32_t tag = next_tag();
    auto context = context_;
    auto record = record_of(CollectiveKind::ALL_GATHER, input, input.numel());
    return enqueue(name, outputs, record, [in, flat, outputs, tag, context] {
      gather_all(context, tag, in, flat);
      for (size_t i = 0; i < outputs.size(); ++i)
        write_chunk(outputs[i], flat, static_cast<int64_t>(i) * in.numel());
    });
  }

  WorkPtr all_gather_into_tensor(const Tensor& output, const Tensor& input) override {
    const std::string name = "ProcessGroupGloo::all_gather_into_tensor";
    detail::check_tensor(name, input, "input", DeviceType::CPU, kDeviceNote);
    detail::check_tensor(name, output, "output", DeviceType::CPU, kDeviceNote);
    detail::check_numel_times(name, output, "output", input, "input", size());
    Tensor in = private_copy(input);  // the output may hold the input (a chunk of it)
    Staged s = stage(output, false);
    uint32_t tag = next_tag();
    auto context = context_;
    auto record = record_of(CollectiveKind::ALL_GATHER, input, input.numel());
    return enqueue(name, {output}, record, [in, s, tag, context] {
      gather_all(context, tag, in, s.buffer);
      s.write_back();
    });
  }

  WorkPtr reduce_scatter_tensor(const Tensor& output, const Tensor& input, ReduceOp op) override {
    const std::string name = "ProcessGroupGloo::reduce_scatter_tensor";
    detail::check_tensor(name, input, "input", DeviceType::CPU, kDeviceNote);
    detail::check_tensor(name, output, "output", DeviceType::CPU, kDeviceNote);
    detail::check_numel_times(name, input, "input", output, "output", size());
    detail::check_reduce_op(name, op, input.dtype());
    return reduce_then_scatter(name, output, private_copy(input), op);
  }

  WorkPtr reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                         ReduceOp op) override {
    const std::string name = "ProcessGroupGloo::reduce_scatter";
    detail::check_tensor(name, output, "output", DeviceType::CPU, kDeviceNote);
    detail::check_list_size(name, "input list", inputs.size(), size());
    for (size_t i = 0; i < inputs.size(); ++i) detail::check_like(name, inputs[i], output, i);
    detail::check_reduce_op(name, op, output.dtype());
    TensorList flat_inputs;
    {
      NoGradGuard no_grad;
      for (const auto& t : inputs) flat_inputs.push_back(t.reshape({-1}));
    }
    Tensor full = private_copy(cat(flat_inputs, 0));
    return reduce_then_scatter(name, output, full, op);
  }

  WorkPtr all_to_all_single(const Tensor& output, const Tensor& input,
                            const std::vector<int64_t>& output_split_sizes,
                            const std::vector<int64_t>& input_split_sizes) override {
    const std::string name = "ProcessGroupGloo::alltoall_base";
    detail::check_tensor(name, input, "input", DeviceType::CPU, kDeviceNote);
    detail::check_tensor(name, output, "output", DeviceType::CPU, kDeviceNote);
    EMBER_CHECK_VALUE(input.dtype() == output.dtype(), name, ": the input has dtype ",
                      dtype_name(input.dtype()), " but the output has dtype ",
                      dtype_name(output.dtype()));
    EMBER_CHECK(input.dim() >= 1 && output.dim() >= 1, name,
                ": the input and output need at least one dimension (got shapes ",
                shape_str(input.sizes()), " and ", shape_str(output.sizes()), ")");
    auto row_elements = [](const Tensor& t) {
      int64_t n = 1;
      for (int64_t d = 1; d < t.dim(); ++d) n *= t.size(d);
      return n;
    };
    int64_t row = row_elements(input);
    EMBER_CHECK(row == row_elements(output), name, ": the input (shape ", shape_str(input.sizes()),
                ") and output (shape ", shape_str(output.sizes()),
                ") must agree on every dimension after the first");
    auto splits = [&](const std::vector<int64_t>& given, const Tensor& t, const char* what) {
      std::vector<int64_t> rows;
      if (given.empty()) {
        EMBER_CHECK(t.size(0) % size() == 0, name, ": the ", what, "'s first dimension (",
                    t.size(0), ") is not divisible by the group size ", size());
        rows.assign(size(), t.size(0) / size());
      } else {
        EMBER_CHECK(given.size() == static_cast<size_t>(size()), name,
                    ": Number of tensor splits not equal to group size (", given.size(), " ",
                    what, " split sizes for ", size(), " ranks)");
        int64_t total = 0;
        for (int64_t s : given) {
          EMBER_CHECK(s >= 0, name, ": split sizes must not be negative, got ", s);
          total += s;
        }
        EMBER_CHECK(total == t.size(0), name, ": Split sizes doesn't match total dim 0 size (the ",
                    what, " split sizes add up to ", total, ", the ", what, " has ", t.size(0),
                    " rows)");
        rows = given;
      }
      std::vector<int64_t> bytes;
      for (int64_t r : rows) bytes.push_back(r * row * t.element_size());
      return bytes;
    };
    std::vector<int64_t> in_bytes = splits(input_split_sizes, input, "input");
    std::vector<int64_t> out_bytes = splits(output_split_sizes, output, "output");
    Tensor in = private_copy(input);
    Staged s = stage(output, false);
    uint32_t tag = next_tag();
    auto context = context_;
    auto record = record_of(CollectiveKind::ALL_TO_ALL, input, 0);
    record.send_bytes = in_bytes;
    record.recv_bytes = out_bytes;
    return enqueue(name, {output}, record, [in, s, in_bytes, out_bytes, tag, context] {
      gloo::AlltoallvOptions opts(context);
      opts.setInput<uint8_t>(static_cast<uint8_t*>(in.data_ptr()), in_bytes);
      opts.setOutput<uint8_t>(s.data(), out_bytes);
      opts.setTag(tag);
      gloo::alltoallv(opts);
      s.write_back();
    });
  }

  WorkPtr gather(const std::vector<Tensor>& outputs, const Tensor& input, int root) override {
    const std::string name = "ProcessGroupGloo::gather";
    detail::check_tensor(name, input, "input", DeviceType::CPU, kDeviceNote);
    detail::check_root(name, root, size());
    bool is_root = root == rank();
    if (is_root) {
      detail::check_list_size(name, "output list", outputs.size(), size());
      for (size_t i = 0; i < outputs.size(); ++i) detail::check_like(name, outputs[i], input, i);
    } else {
      EMBER_CHECK_VALUE(outputs.empty(), name, ": the output list must be empty on rank ", rank(),
                        ", which is not the destination (", root, ")");
    }
    Tensor in = input.is_contiguous() ? input : private_copy(input);
    Tensor flat = is_root ? empty({input.numel() * size()}, TensorOptions(input.dtype())) : Tensor();
    uint32_t tag = next_tag();
    auto context = context_;
    auto record = record_of(CollectiveKind::GATHER, input, input.numel(), root);
    return enqueue(name, outputs, record, [in, flat, outputs, tag, context, root, is_root] {
      if (in.nbytes() > 0) {
        gloo::GatherOptions opts(context);
        opts.setInput<uint8_t>(static_cast<uint8_t*>(in.data_ptr()), in.nbytes());
        if (is_root) opts.setOutput<uint8_t>(static_cast<uint8_t*>(flat.data_ptr()), flat.nbytes());
        opts.setRoot(root);
        opts.setTag(tag);
        gloo::gather(opts);
      }
      if (is_root)
        for (size_t i = 0; i < outputs.size(); ++i)
          write_chunk(outputs[i], flat, static_cast<int64_t>(i) * in.numel());
    });
  }

  WorkPtr scatter(const Tensor& output, const std::vector<Tensor>& inputs, int root) override {
    const std::string name = "ProcessGroupGloo::scatter";
    detail::check_tensor(name, output, "output", DeviceType::CPU, kDeviceNote);
    detail::check_root(name, root, size());
    bool is_root = root == rank();
    std::vector<Tensor> staged_inputs;
    if (is_root) {
      detail::check_list_size(name, "input list", inputs.size(), size());
      for (size_t i = 0; i < inputs.size(); ++i) detail::check_like(name, inputs[i], output, i);
      for (const auto& t : inputs) staged_inputs.push_back(t.is_contiguous() ? t : private_copy(t));
    } else {
      EMBER_CHECK_VALUE(inputs.empty(), name, ": the input list must be empty on rank ", rank(),
                        ", which is not the source (", root, ")");
    }
    Staged s = stage(output, false);
    uint32_t tag = next_tag();
    auto context = context_;
    auto record = record_of(CollectiveKind::SCATTER, output, output.numel(), root);
    return enqueue(name, {output}, record, [staged_inputs, s, tag, context, root, is_root] {
      if (s.nbytes() > 0) {
        gloo::ScatterOptions opts(context);
        if (is_root) {
          std::vector<uint8_t*> pointers;
          for (const auto& t : staged_inputs) pointers.push_back(static_cast<uint8_t*>(t.data_ptr()));
          opts.setInputs<uint8_t>(pointers, s.nbytes());
        }
        opts.setOutput<uint8_t>(s.data(), s.nbytes());
        opts.setRoot(root);
        opts.setTag(tag);
        gloo::scatter(opts);
      }
      s.write_back();
    });
  }

  WorkPtr send(const Tensor& tensor, int dst, int tag) override {
    const std::string name = "ProcessGroupGloo::send";
    detail::check_tensor(name, tensor, "tensor", DeviceType::CPU, kDeviceNote);
    detail::check_peer(name, dst, rank(), size(), false);
    Tensor data = private_copy(tensor);  // the caller may change its tensor meanwhile
    std::shared_ptr<gloo::transport::UnboundBuffer> buffer =
        context_->createUnboundBuffer(data.data_ptr(), static_cast<size_t>(data.nbytes()));
    buffer->send(dst, p2p_slot(tag));
    auto work = std::make_shared<Work>(name);
    auto timeout = context_->getTimeout();
    track(buffer);
    p2p_->push([this, work, buffer, data, timeout, name] {
      finish_with(work, name, [&] {
        bool done = buffer->waitSend(timeout);
        untrack(buffer);
        if (!done) throw DistBackendError(name + ": aborted (the process group was destroyed)");
      });
    });
    return work;
  }

  WorkPtr recv(const Tensor& tensor, int src, int tag) override {
    const std::string name = "ProcessGroupGloo::recv";
    detail::check_tensor(name, tensor, "tensor", DeviceType::CPU, kDeviceNote);
    detail::check_peer(name, src, rank(), size(), true);
    Staged s = stage(tensor, false);
    std::shared_ptr<gloo::transport::UnboundBuffer> buffer =
        context_->createUnboundBuffer(s.buffer.data_ptr(), s.nbytes());
    if (src >= 0) {
      buffer->recv(src, p2p_slot(tag));
    } else {
      std::vector<int> peers;
      for (int r = 0; r < size(); ++r)
        if (r != rank()) peers.push_back(r);
      buffer->recv(peers, p2p_slot(tag));
    }
    auto work = std::make_shared<Work>(name);
    work->set_outputs({tensor});
    auto timeout = context_->getTimeout();
    track(buffer);
    p2p_->push([this, work, buffer, s, timeout, name] {
      finish_with(work, name, [&] {
        int source = -1;
        bool done = buffer->waitRecv(&source, timeout);
        untrack(buffer);
        if (!done) throw DistBackendError(name + ": aborted (the process group was destroyed)");
        s.write_back();
        work->set_source_rank(source);
      });
    });
    return work;
  }

  WorkPtr barrier() override {
    const std::string name = "ProcessGroupGloo::barrier";
    uint32_t tag = next_tag();
    auto context = context_;
    return enqueue(name, {}, CallRecord{}, [tag, context] {
      gloo::BarrierOptions opts(context);
      opts.setTag(tag);
      gloo::barrier(opts);
    });
  }

 private:
  uint32_t next_tag() { return next_tag_++; }

  using BufferPtr = std::shared_ptr<gloo::transport::UnboundBuffer>;
  void track(const BufferPtr& buffer) {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    pending_p2p_.insert(buffer);
  }
  void untrack(const BufferPtr& buffer) {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    pending_p2p_.erase(buffer);
  }

  // all_reduce of buffer in place (AVG: then the division), as a step of a task.
  std::function<void()> reduce_step(const Tensor& buffer, ReduceOp op) {
    uint32_t tag = next_tag();
    auto context = context_;
    auto kernel = detail::reduce_kernel(buffer.dtype(), op);
    int n = size();
    return [buffer, tag, context, kernel, op, n] {
      size_t count = static_cast<size_t>(buffer.numel());
      if (count == 0) return;
      gloo::AllreduceOptions opts(context);
      with_element_width(buffer.element_size(), [&](auto width) {
        using T = decltype(width);
        opts.setOutput<T>(static_cast<T*>(buffer.data_ptr()), count);
      });
      opts.setReduceFunction(kernel);
      opts.setTag(tag);
      gloo::allreduce(opts);
      if (op == ReduceOp::AVG) detail::divide_in_place(buffer.data_ptr(), buffer.dtype(), count, n);
    };
  }

  // Gloo has no reduce-scatter of this shape: all_reduce the whole input, keep this
  // rank's chunk (twice the traffic of a ring reduce-scatter; correct for any op).
  WorkPtr reduce_then_scatter(const std::string& name, const Tensor& output, const Tensor& full,
                              ReduceOp op) {
    auto reduce = reduce_step(full, op);
    Staged s = stage(output, false);
    int64_t offset = output.numel() * rank();
    auto record = record_of(CollectiveKind::REDUCE_SCATTER, full, full.numel(), -1, int(op));
    return enqueue(name, {output}, record, [reduce, full, s, offset] {
      reduce();
      size_t bytes = s.nbytes();
      if (bytes)
        std::memcpy(s.data(), static_cast<const uint8_t*>(full.data_ptr()) + offset * full.element_size(),
                    bytes);
      s.write_back();
    });
  }

  static void gather_all(const std::shared_ptr<gloo::Context>& context, uint32_t tag, const Tensor& in,
                          const Tensor& out) {
    if (in.nbytes() == 0) return;
    gloo::AllgatherOptions opts(context);
    opts.setInput<uint8_t>(static_cast<uint8_t*>(in.data_ptr()), in.nbytes());
    opts.setOutput<uint8_t>(static_cast<uint8_t*>(out.data_ptr()), out.nbytes());
    opts.setTag(tag);
    gloo::allgather(opts);
  }

  // Runs body, finishing work with its outcome; Gloo's errors become DistBackendError.
  template <typename F>
  static void finish_with(const WorkPtr& work, const std::string& name, F&& body) {
    try {
      body();
      work->finish();
    } catch (const ember::Error&) {
      work->finish(std::current_exception());
    } catch (const std::exception& e) {
      work->finish(std::make_exception_ptr(DistBackendError(name + " failed: " + e.what())));
    } catch (...) {
      work->finish(std::make_exception_ptr(DistBackendError(name + " failed")));
    }
  }

  // Queues body; with agreement checks on, the ranks first exchange their call records
  // (no record: body does the exchange itself).
  WorkPtr enqueue(const std::string& name, std::vector<Tensor> outputs,
                  const std::optional<CallRecord>& record, std::function<void()> body) {
    auto work = std::make_shared<Work>(name);
    work->set_outputs(std::move(outputs));
    std::vector<int64_t> mine;
    if (exchange_ && record) mine = detail::encode_record(*record, size());
    auto exchange = exchange_;
    worker_->push([work, name, body = std::move(body), mine, exchange] {
      finish_with(work, name, [&] {
        if (!mine.empty()) {
          exchange->exchange(name, mine, nullptr, 0);
          exchange->release();
        }
        body();
      });
    });
    return work;
  }

  std::shared_ptr<gloo::Context> context_;
  std::shared_ptr<detail::CallExchange> exchange_;  // null: checks off, or a world of one
  Milliseconds timeout_;
  uint32_t next_tag_ = 0;
  std::mutex pending_mutex_;
  std::set<BufferPtr> pending_p2p_;  // sends and receives not yet complete
  std::unique_ptr<detail::TaskQueue> worker_ = std::make_unique<detail::TaskQueue>();
  std::unique_ptr<detail::TaskQueue> p2p_ = std::make_unique<detail::TaskQueue>();
};

}  // namespace

bool is_gloo_available() { return true; }

ProcessGroupPtr make_gloo_process_group(const std::shared_ptr<Store>& store, int rank, int size,
                                        const GlooOptions& options) {
  auto context = detail::connect_gloo_context(store, rank, size, options);
  return std::make_shared<ProcessGroupGloo>(std::move(context), rank, size, options.timeout);
}

}  // namespace ember::distributed
#endif
