#include "distributed/collective_agreement.h"

#include <cstdlib>
#include <cstring>

namespace ember::distributed::detail {

namespace {

constexpr size_t kHeader = 5;

const char* kind_name(int64_t kind) {
  switch (static_cast<CollectiveKind>(kind)) {
    case CollectiveKind::ALL_REDUCE: return "all_reduce";
    case CollectiveKind::BROADCAST: return "broadcast";
    case CollectiveKind::REDUCE: return "reduce";
    case CollectiveKind::ALL_GATHER: return "all_gather";
    case CollectiveKind::REDUCE_SCATTER: return "reduce_scatter";
    case CollectiveKind::ALL_TO_ALL: return "all_to_all";
    case CollectiveKind::GATHER: return "gather";
    case CollectiveKind::SCATTER: return "scatter";
    case CollectiveKind::BARRIER: return "barrier";
  }
  return "an unknown operation";
}

std::string describe(const int64_t* r) {
  std::string s = kind_name(r[0]);
  if (static_cast<CollectiveKind>(r[0]) == CollectiveKind::BARRIER) return s;
  s += " of " + std::to_string(r[2]) + " ";
  s += r[1] >= 0 && r[1] < kNumDTypes ? dtype_name(static_cast<DType>(r[1])) : "?";
  s += " elements";
  if (r[3] >= 0) s += ", root " + std::to_string(r[3]);
  if (r[4] >= 0) s += std::string(", ReduceOp.") + reduce_op_name(static_cast<ReduceOp>(r[4]));
  return s;
}

}  // namespace

size_t record_length(int group_size) { return kHeader + 2 * static_cast<size_t>(group_size); }

std::vector<int64_t> encode_record(const CallRecord& record, int group_size) {
  std::vector<int64_t> out(record_length(group_size), 0);
  out[0] = static_cast<int64_t>(record.kind);
  out[1] = record.dtype;
  out[2] = record.numel;
  out[3] = record.root;
  out[4] = record.reduce_op;
  for (size_t i = 0; i < record.send_bytes.size() && i < static_cast<size_t>(group_size); ++i)
    out[kHeader + i] = record.send_bytes[i];
  for (size_t i = 0; i < record.recv_bytes.size() && i < static_cast<size_t>(group_size); ++i)
    out[kHeader + group_size + i] = record.recv_bytes[i];
  return out;
}

void check_agreement(const std::string& op, const std::vector<int64_t>& records, int group_size) {
  size_t length = record_length(group_size);
  const int64_t* first = records.data();
  bool agree = true;
  for (int r = 1; r < group_size && agree; ++r)
    agree = std::memcmp(first, records.data() + r * length, kHeader * sizeof(int64_t)) == 0;
  if (agree && static_cast<CollectiveKind>(first[0]) == CollectiveKind::ALL_TO_ALL) {
    // What rank i sends to rank j is what rank j expects from rank i.
    for (int i = 0; i < group_size; ++i)
      for (int j = 0; j < group_size; ++j) {
        int64_t sent = records[i * length + kHeader + j];
        int64_t expected = records[j * length + kHeader + group_size + i];
        if (sent != expected)
          throw DistBackendError(op + ": the ranks' split sizes disagree: rank " + std::to_string(i) +
                                 " sends " + std::to_string(sent) + " bytes to rank " +
                                 std::to_string(j) + ", which expects " + std::to_string(expected) +
                                 " bytes from it");
      }
    return;
  }
  if (agree) return;
  std::string message = op + ": the ranks called different collectives (every rank must make the "
                        "same calls, in the same order, with the same sizes):";
  for (int r = 0; r < group_size && r < 16; ++r)
    message += " rank " + std::to_string(r) + ": " + describe(records.data() + r * length) + ";";
  message.pop_back();
  throw DistBackendError(message);
}

bool agreement_checks_enabled() {
  const char* env = std::getenv("EMBER_DISTRIBUTED_CHECKS");
  return !(env && std::strcmp(env, "0") == 0);
}

}  // namespace ember::distributed::detail
