#ifdef EMBER_WITH_GLOO
#include "distributed/call_exchange.h"

#include <gloo/types.h>

#include <algorithm>
#include <cstring>

#include "distributed/collective_agreement.h"

namespace ember::distributed::detail {

namespace {

// Slots apart from Gloo's collectives (prefixes 0x01-0x08) and ember's sends and
// receives (prefix 0).
constexpr uint8_t kExchangeSlotPrefix = 0x45;
// Data bytes a message may carry, and all of one rank's messages together. Measured
// on loopback (docs/PERF.md): a 1 MiB all_reduce as one message each way beats Gloo's
// ring at 2 and 4 ranks (at 2 it moves the same bytes, in one step instead of two); at
// 2 MiB it was slower than the ring, which overlaps the reduction with the transfers. The total bounds the extra traffic of many ranks
// (each sends its data to every other) and the receive buffers a group keeps.
constexpr size_t kInlinePerPeer = size_t(1) << 20;
constexpr size_t kInlineBudget = size_t(3) << 20;

}  // namespace

CallExchange::CallExchange(std::shared_ptr<gloo::Context> context, std::chrono::milliseconds timeout)
    : context_(std::move(context)), timeout_(timeout) {
  int n = context_->size;
  record_bytes_ = record_length(n) * sizeof(int64_t);
  capacity_ = n > 1 ? std::min(kInlinePerPeer, kInlineBudget / static_cast<size_t>(n - 1)) / 64 * 64 : 0;
}

void CallExchange::post_receives() {
  int n = context_->size, me = context_->rank;
  if (receives_.empty()) {
    storage_.resize(n);
    receives_.resize(n);
    for (int r = 0; r < n; ++r) {
      if (r == me) continue;
      storage_[r].resize(record_bytes_ + capacity_);
      receives_[r] = context_->createUnboundBuffer(storage_[r].data(), storage_[r].size());
    }
  }
  uint64_t slot = gloo::Slot::build(kExchangeSlotPrefix, sequence_);
  for (int r = 0; r < n; ++r)
    if (r != me) receives_[r]->recv(r, slot);
  posted_ = true;
}

void CallExchange::exchange(const std::string& op, const std::vector<int64_t>& record,
                            const void* payload, size_t payload_bytes) {
  int n = context_->size, me = context_->rank;
  if (payload_bytes > capacity_ || record.size() * sizeof(int64_t) != record_bytes_)
    throw Error(op + ": internal error: a call record of the wrong size or an oversized payload");
  if (!posted_) post_receives();
  outgoing_.resize(record_bytes_ + payload_bytes);
  std::memcpy(outgoing_.data(), record.data(), record_bytes_);
  if (payload_bytes) std::memcpy(outgoing_.data() + record_bytes_, payload, payload_bytes);
  auto send = context_->createUnboundBuffer(outgoing_.data(), outgoing_.size());
  uint64_t slot = gloo::Slot::build(kExchangeSlotPrefix, sequence_);
  for (int r = 0; r < n; ++r)
    if (r != me) send->send(r, slot);
  posted_ = false;
  ++sequence_;
  for (int r = 0; r < n; ++r)
    if (r != me && !receives_[r]->waitRecv(timeout_))
      throw DistBackendError(op + ": aborted (the process group was destroyed)");
  for (int r = 0; r < n - 1; ++r)
    if (!send->waitSend(timeout_))
      throw DistBackendError(op + ": aborted (the process group was destroyed)");

  std::vector<int64_t> all(record.size() * n);
  for (int r = 0; r < n; ++r)
    std::memcpy(all.data() + r * record.size(), r == me ? outgoing_.data() : storage_[r].data(),
                record_bytes_);
  try {
    check_agreement(op, all, n);
  } catch (...) {
    release();  // the messages all arrived: the group stays usable
    throw;
  }
}

uint8_t* CallExchange::peer_payload(int rank) { return storage_[rank].data() + record_bytes_; }

void CallExchange::release() { post_receives(); }

}  // namespace ember::distributed::detail
#endif
