// The op schema at run time: each op's row of lib/dispatch/schema/*.toml as data
// (the table is generated: build/generated/dispatch/op_schema_table.cpp). The
// dispatcher can check every call against it (set_schema_checks: the tests turn it
// on), and Python reads it (ember._C._op_schemas) for the op database and the
// coverage table.
#pragma once
#include <cstdint>

#include "dispatch/op_table.h"

namespace ember {

struct OpCall;

// What a signature's argument holds in the OpCall.
enum class ArgKind : uint8_t {
  Tensor,         // one input (Tensor, Tensor?)
  TensorList,     // all remaining inputs, each defined (Tensor[])
  OptTensorList,  // all remaining inputs, each may be undefined (Tensor?[])
  Bool, Int, Float, Scalar, IntList, DType, Device, Str,  // one attr
  OptFloatList,   // all remaining attrs, each a float or None (float?[])
};
const char* arg_kind_name(ArgKind kind);

struct ArgSchema {
  const char* name;
  ArgKind kind;
  bool optional;  // Tensor? (may be undefined) or T? (None allowed)
  bool mutated;   // Tensor(a!)
};

enum OpTag : uint16_t {
  kTagPointwise = 1 << 0,
  kTagReduction = 1 << 1,
  kTagView = 1 << 2,
  kTagRandom = 1 << 3,
  kTagNondeterministic = 1 << 4,
  kTagInplace = 1 << 5,
  kTagFactory = 1 << 6,
  kTagBackward = 1 << 7,
  kTagOptimizer = 1 << 8,
};
enum OpVariant : uint8_t {
  kVariantFunction = 1 << 0,
  kVariantMethod = 1 << 1,
  kVariantInplace = 1 << 2,
  kVariantOut = 1 << 3,
};
enum class DerivativeKind : uint8_t { Formula, View, NonDifferentiable, None };
// How a traced node runs: an invoker generated from the row, a hand-written one, none.
enum class InvokerKind : uint8_t { Generated, Manual, None };

struct OpSchema {
  const char* name;
  const char* group;
  const char* func;  // the signature, as written in the row
  const char* doc;
  uint16_t tags;      // OpTag bits
  uint8_t variants;   // OpVariant bits
  DerivativeKind derivative;
  InvokerKind invoker;
  const char* onnx;      // nullptr: no 1:1 ONNX operator
  const char* autocast;      // the policy on CUDA (lib/autocast); nullptr: not set
  const char* autocast_cpu;  // the policy on the CPU; nullptr: not set
  const char* shape;     // nullptr: not set
  const ArgSchema* inputs;
  uint8_t num_inputs;
  const ArgSchema* attrs;
  uint8_t num_attrs;
  int8_t num_outputs;  // -1: a variable number (Tensor[])

  bool has_tag(OpTag t) const { return (tags & t) != 0; }
};

const OpSchema& op_schema(OpId op);

// Schema checks: when on, the backend layer checks every call against its row
// (input count and definedness, attr count and kinds before the kernel; output count
// after it) and raises ember::Error ("schema check: ...") naming the op and the mismatch. Off by
// default (one branch per call); on in the test suites and with EMBER_CHECK_SCHEMA=1.
void set_schema_checks(bool on);
extern bool g_schema_checks;
inline bool schema_checks_enabled() { return g_schema_checks; }
void check_call_inputs(const OpCall& call);
void check_call_outputs(const OpCall& call);

}  // namespace ember
