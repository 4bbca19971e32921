// The rematerialization runtime's bookkeeping (see remat.h for what it does): one
// Record per storage it holds a handle on, the Recipe that recomputes a storage, and
// the per-device budgets and counters. Everything here is guarded by state_mutex().
#pragma once
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ember/generator.h"
#include "ember/memory_budget.h"
#include "remat/remat.h"

namespace ember::remat {

struct Recipe;

// One storage the runtime has handles (Refs) on, with how to get its memory back.
// It lives as long as those handles: the saved tensors of the graph's nodes, the
// nodes' handles on their outputs, and the recipes that read it.
struct Record {
  Storage* storage = nullptr;       // alive: the Refs' aliases hold it
  Device device;
  size_t nbytes = 0;                // of its memory when resident
  uint64_t version = 0;             // the storage's version when the recipe made it
  std::shared_ptr<Recipe> recipe;   // null: cannot be recomputed (never evicted)
  size_t output_index = 0;          // which output of the recipe it is
  int internal_refs = 0;            // Refs on it (at least one while the record lives)
  int saved_refs = 0;               // of those, held by saved tensors (backward reads it)
  int pins = 0;                     // calls running on it now: not to be evicted
  bool evicted = false;
  uint64_t last_use = 0;            // the clock of the last call that read or made it
  std::vector<Recipe*> consumers;   // recipes that take it as an input
};

// How to run again the call that made some storages.
struct Recipe {
  struct Output {
    Record* record = nullptr;  // null once that output's record is gone
    DimVector sizes, strides;
    int64_t storage_offset = 0;
    DType dtype = kFloat32;
  };
  // An in-place op recorded on one output after it was made (relu_ after a batch
  // norm): replayed on the recomputed output, in order.
  struct InPlaceStep {
    size_t output = 0;                     // which output it writes
    OpId op{};
    SmallVector<Attr, 4> attrs;
    std::vector<Ref> inputs;               // undefined: left out, or the output itself
    std::vector<bool> is_output;           // the input is the output being written
    std::vector<uint64_t> input_versions;
    std::optional<PhiloxState> rng;
  };
  OpId op{};
  SmallVector<Attr, 4> attrs;
  Device device;
  std::vector<Ref> inputs;               // undefined for an optional input left out
  std::vector<uint64_t> input_versions;  // each input's storage version at the call
  std::vector<InPlaceStep> steps;
  std::vector<Output> outputs;
  std::optional<PhiloxState> rng;        // the default generator's state before the call,
                                         // when the kernel drew from it (dropout)
  double seconds = 0;                    // what the call took: its recompute cost

  Recipe() = default;
  Recipe(const Recipe&) = delete;
  Recipe& operator=(const Recipe&) = delete;
  ~Recipe();
};

struct DeviceState {
  std::optional<int64_t> budget;
  memory::RematStats stats;
};

// The device as the runtime keys it: a CPU device without an index.
inline Device normalized(Device d) { return d.is_cpu() ? Device(DeviceType::CPU) : d; }

std::recursive_mutex& state_mutex();
// How many records are evicted now (the dispatcher's hook stays on while any are).
int& evicted_count();
std::unordered_map<Storage*, std::unique_ptr<Record>>& records();
DeviceState& device_state(Device device);  // created on first use; device normalized
// Keeps the dispatcher's hook on while a budget is set or evicted memory remains.
void update_active();
// Evicts by the DTR heuristic until an allocation of nbytes fits `device`'s budget;
// OutOfMemoryError when nothing more can be evicted.
void make_room(Device device, size_t nbytes);

}  // namespace ember::remat
