// Rematerialization under a memory budget (DTR, Kirisame et al. 2021, as MegEngine
// has it): while a budget is set (ember/memory_budget.h), an allocation that would
// pass it first evicts tensors the tape keeps for backward and can recompute, and a
// later op (or backward) that reads an evicted tensor recomputes it first.
//
// How it fits the dispatcher (DESIGN.md): the autograd layer hands the calls it
// records to record_call(), which runs the kernel, times it and keeps each fresh
// output's recipe (the op, its attrs and handles on its inputs); the backend layer
// hands every call to run_call(), which makes the call's tensors resident and pins
// them while the kernel runs; Storage::allocate asks make_room() before it
// allocates. Saved tensors hold their memory through a Ref, a handle the runtime can
// evict behind and that rematerializes on get(). With no budget set, none of this
// runs: the dispatcher and Storage::allocate pay one relaxed load each.
//
// What may be evicted: the memory of a tensor that only the runtime's own handles
// hold (no user tensor, no view of it, no module buffer), that an op recorded for
// backward produced fresh (not a view; not by an op that writes an input, except
// training-mode batch norm, recomputed without its running statistics), written in
// place since only by recorded ops on the whole tensor (replayed after the recompute),
// and whose inputs still have the versions they had. Parameters, inputs and anything
// a user holds stay.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "dispatch/op_call.h"
#include "ember/tensor.h"

namespace ember::remat {

struct Record;

extern std::atomic<bool> g_budget_set;  // on some device

// Whether a budget is set on any device (one relaxed load).
inline bool active() { return g_budget_set.load(std::memory_order_relaxed); }

// A handle on a tensor's memory that the runtime may evict behind: it keeps its own
// alias (a TensorImpl no one else holds), so that the memory counts as held by the
// runtime alone once the user's tensors are gone. Move-only.
class Ref {
 public:
  // Who holds the handle: a saved tensor that backward reads, or the runtime itself
  // (a recipe's input, a node's handle on its outputs). A tensor no saved tensor holds
  // is read again only to recompute another, which the eviction heuristic prices.
  enum class Holder : uint8_t { runtime, saved_for_backward };

  Ref() = default;
  explicit Ref(const Tensor& t, Holder holder = Holder::runtime);
  ~Ref();
  Ref(Ref&& o) noexcept : alias_(std::move(o.alias_)), record_(o.record_), holder_(o.holder_) {
    o.record_ = nullptr;
  }
  Ref& operator=(Ref&& o) noexcept;
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;

  bool defined() const { return alias_.defined(); }
  explicit operator bool() const { return defined(); }
  // A new alias (without autograd history) of the tensor, its memory resident.
  Tensor get() const;
  // The version of its storage (rematerializing does not change it).
  uint64_t version() const { return alias_.version(); }
  // The alias itself, resident or not: for geometry and identity only.
  const Tensor& alias() const { return alias_; }
  Record* record() const { return record_; }

 private:
  Tensor alias_;
  Record* record_ = nullptr;
  Holder holder_ = Holder::runtime;
};

// The backend layer's entry while active(): rematerializes the call's evicted
// tensors, pins them for the kernel, runs it (dispatch_backend_kernel).
void run_call(OpCall& call);
// The autograd layer's entry for a call it records, while active(): run_call, timed,
// and the recipe of the fresh outputs kept, with a Ref on each output added to `keep`
// for the call's backward node to hold (release_variables drops them).
void record_call(OpCall& call, bool is_view_op, std::vector<Ref>& keep);

}  // namespace ember::remat
