// Do the ranks agree on the collective they are running? Each rank describes its
// call in a fixed-size record (what it is, the dtype, the element count, the root,
// the reduction, and for all_to_all the bytes it sends to and expects from every
// rank); the backend gives every rank every record before the collective (Gloo:
// call_exchange.h) and each rank checks them all, so a mismatch raises the same
// error on every rank instead of corrupting results or aborting inside the
// transport (Gloo terminates the process when a message is longer than the buffer
// that receives it).
#pragma once
#include <string>
#include <vector>

#include "ember/distributed/process_group.h"

namespace ember::distributed::detail {

enum class CollectiveKind : int64_t {
  ALL_REDUCE = 1, BROADCAST, REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, GATHER, SCATTER,
  BARRIER,
};

struct CallRecord {
  CollectiveKind kind = CollectiveKind::BARRIER;
  int64_t dtype = -1;      // DType, -1: none
  int64_t numel = 0;       // the element count the ranks must share
  int64_t root = -1;
  int64_t reduce_op = -1;  // ReduceOp, -1: none
  std::vector<int64_t> send_bytes, recv_bytes;  // all_to_all: per peer
};

// The record as int64 values: 5 + 2 * group_size of them, whatever the call.
std::vector<int64_t> encode_record(const CallRecord& record, int group_size);
size_t record_length(int group_size);
// Raises DistBackendError naming the ranks and what each called when the records
// (group_size of them, one after the other) disagree.
void check_agreement(const std::string& op, const std::vector<int64_t>& records, int group_size);

// Whether groups made from now on check (EMBER_DISTRIBUTED_CHECKS=0 turns it off).
bool agreement_checks_enabled();

}  // namespace ember::distributed::detail
