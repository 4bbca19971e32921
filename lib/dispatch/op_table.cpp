#include "dispatch/op_table.h"

#include <cstring>

namespace ember {

static const char* const kOpNames[] = {
#define EMBER_OP(name) #name,
#include "dispatch/op_ids.def"  // generated
#undef EMBER_OP
};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == kNumOps,
              "op name table out of step with the OpId enum");

const char* op_name(OpId op) {
  int i = static_cast<int>(op);
  return i >= 0 && i < kNumOps ? kOpNames[i] : "<invalid op>";
}

OpId op_from_name(const char* name) {
  for (int i = 0; i < kNumOps; ++i)
    if (std::strcmp(kOpNames[i], name) == 0) return static_cast<OpId>(i);
  return OpId::COUNT;
}

}  // namespace ember
