// The agreement check of a Gloo group (collective_agreement.h) as one message per
// peer: before a collective each rank sends its call record straight to every other
// rank, and a small all_reduce sends its data in the same message, so one message
// both proves that the ranks agree and carries the reduction's inputs (the check is
// then free: the data had to travel anyway).
//
// Why this never aborts inside Gloo, which terminates the process when a message is
// longer than the buffer receiving it: every rank receives these messages into
// buffers of the same size, record_length(n) words plus inline_capacity() bytes, a
// function of the group size only, and sends at most that much, whatever it was
// called with. Data of a size the ranks may disagree on travels only in such a
// message, or after the records proved that they agree.
//
// The receives of the next exchange are posted as soon as the current one is done
// with its buffers, so a rank's message goes out the moment it sends (Gloo's
// transport otherwise waits for the receiver to announce its buffer first).
#pragma once
#ifdef EMBER_WITH_GLOO
#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace ember::distributed::detail {

class CallExchange {
 public:
  CallExchange(std::shared_ptr<gloo::Context> context, std::chrono::milliseconds timeout);

  // The most payload bytes a message carries: 1 MiB up to 4 ranks, 3 MiB / (n - 1) beyond.
  size_t inline_capacity() const { return capacity_; }

  // Sends record (encode_record's words) and payload_bytes (<= inline_capacity()) of
  // payload to every other rank and receives theirs. Raises DistBackendError naming
  // what each rank called when the records disagree: every rank sees every record,
  // so every rank raises. Then peer_payload(r) holds rank r's payload until release().
  void exchange(const std::string& op, const std::vector<int64_t>& record, const void* payload,
                size_t payload_bytes);
  uint8_t* peer_payload(int rank);
  // Done with the peers' payloads: posts the receives of the next exchange.
  void release();

 private:
  void post_receives();

  // A receive still posted when the group goes is harmless: the transport holds it
  // by a weak pointer, and each buffer keeps the transport's context alive.
  std::vector<std::vector<uint8_t>> storage_;  // per rank, empty for this one
  std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> receives_;
  std::vector<uint8_t> outgoing_;
  std::shared_ptr<gloo::Context> context_;
  std::chrono::milliseconds timeout_;
  size_t record_bytes_;
  size_t capacity_;
  uint32_t sequence_ = 0;  // the exchange's slot: every rank counts its collectives alike
  bool posted_ = false;
};

}  // namespace ember::distributed::detail
#endif
