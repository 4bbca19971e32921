// How a random op's OpCall carries its Philox stream: its last two attrs are the
// seed and the first counter (as int64 bit patterns), reserved from the generator
// by the op function. The kernel then needs no generator, and a call replays
// exactly from its attrs on any backend.
#pragma once
#include "dispatch/op_call.h"
#include "ember/generator.h"

namespace ember {

inline void push_philox(OpCall& call, PhiloxState state) {
  call.attrs.push_back(Attr(static_cast<int64_t>(state.seed)));
  call.attrs.push_back(Attr(static_cast<int64_t>(state.offset)));
}

inline PhiloxState philox_of(const OpCall& call) {
  size_t n = call.attrs.size();
  return {static_cast<uint64_t>(call.attr(n - 2).to_int()), static_cast<uint64_t>(call.attr(n - 1).to_int())};
}

}  // namespace ember
