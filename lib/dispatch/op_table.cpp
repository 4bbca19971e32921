#include "dispatch/op_table.h"

#include <cstring>

#include "dispatch/op_schema.h"

namespace ember {

// The generated table (build/generated/dispatch/op_schema_table.cpp), indexed by id.
extern const OpSchema kOpSchemas[kOpCapacity];

bool is_op(OpId op) {
  int i = static_cast<int>(op);
  return i >= 0 && i < kOpCapacity && kOpSchemas[i].name != nullptr;
}

const char* op_name(OpId op) { return is_op(op) ? kOpSchemas[static_cast<int>(op)].name : "<invalid op>"; }

OpId op_from_name(const char* name) {
  for (int i = 0; i < kOpCapacity; ++i)
    if (kOpSchemas[i].name && std::strcmp(kOpSchemas[i].name, name) == 0) return static_cast<OpId>(i);
  return kNoOp;
}

}  // namespace ember
