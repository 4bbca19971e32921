// The op table: every dispatched op has exactly one row in the op schema
// (lib/dispatch/schema/<group>.toml), from which the build generates
// dispatch/op_ids.def (EMBER_OP(name) per row, in OpId order). The row's name is
// the op's identity everywhere: the OpId enum, the kernel registry, error
// messages, the autograd derivative table, the tracer's graph and the model file.
// Composite ops (written from other ops) have no row. The rest of the row (its
// signature, tags, derivative kind) is in op_schema.h.
#pragma once
#include <cstdint>

namespace ember {

enum class OpId : uint16_t {
#define EMBER_OP(name) name,
#include "dispatch/op_ids.def"  // generated
#undef EMBER_OP
  COUNT
};
constexpr int kNumOps = static_cast<int>(OpId::COUNT);

// "add", "sum", ...: the row's name.
const char* op_name(OpId op);
// The OpId for a row's name, or OpId::COUNT when there is none (model loading).
OpId op_from_name(const char* name);

}  // namespace ember
