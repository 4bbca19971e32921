// The op table: every dispatched op has exactly one row, in one of the
// ops/*.def files (one file per group of ops). The row's name is the op's
// identity everywhere: the OpId enum, the kernel registry, error messages,
// the autograd derivative table, the tracer's graph and the model file.
// Composite ops (written from other ops) have no row.
#pragma once
#include <cstdint>

namespace ember {

enum class OpId : uint16_t {
#define EMBER_OP(name) name,
#include "dispatch/ops/all.def"
#undef EMBER_OP
  COUNT
};
constexpr int kNumOps = static_cast<int>(OpId::COUNT);

// "add", "sum", ...: the row's name.
const char* op_name(OpId op);
// The OpId for a row's name, or OpId::COUNT when there is none (model loading).
OpId op_from_name(const char* name);

}  // namespace ember
