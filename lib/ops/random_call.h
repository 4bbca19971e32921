// How a random op's OpCall carries its Philox stream: every random row ends with
// the attrs `int seed, int offset` (the seed and the first counter, as int64 bit
// patterns), which the op function fills from the generator's reservation
// (lib/ops/random.cpp). The kernel then needs no generator, and a call replays
// exactly from its attrs on any backend. philox_of reads them by position because
// one kernel body serves random rows of different signatures.
#pragma once
#include "dispatch/op_call.h"
#include "ember/generator.h"

namespace ember {

inline PhiloxState philox_of(const OpCall& call) {
  size_t n = call.attrs.size();
  return {static_cast<uint64_t>(call.attr(n - 2).to_int()), static_cast<uint64_t>(call.attr(n - 1).to_int())};
}

}  // namespace ember
