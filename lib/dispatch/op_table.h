// The op table: every dispatched op has exactly one row in the op schema
// (lib/dispatch/schema/<group>.toml). The row's name is the op's identity
// everywhere: its OpId, the kernel registry, error messages, the autograd derivative
// table, the tracer's graph and the model file (which stores names, never ids).
// Composite ops (written from other ops) have no row. The rest of the row (its
// signature, tags, derivative kind) is in op_schema.h.
//
// OpId is opaque here: the ids themselves are generated per group,
// dispatch/op_ids/<group>.h (opid::add, opid::sum, ...), each group in a fixed range
// of ids, so adding a row recompiles the files that name that group's ops, not every
// file that dispatches.
#pragma once
#include <cstdint>

namespace ember {

enum class OpId : uint16_t {};
// Every id is below this; not every id below it has a row (is_op).
constexpr int kOpCapacity = 2048;
// Returned by op_from_name when no row has the name.
constexpr OpId kNoOp{0xFFFF};

// Whether some row has this id.
bool is_op(OpId op);
// "add", "sum", ...: the row's name ("<invalid op>" for an id no row has).
const char* op_name(OpId op);
// The OpId for a row's name, or kNoOp when there is none (model loading).
OpId op_from_name(const char* name);

}  // namespace ember
