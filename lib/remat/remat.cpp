// The rematerialization runtime: handles (Ref), recipes, recompute, eviction.
// remat.h says what it does and where the dispatcher calls it; remat_state.h holds
// its bookkeeping; budget.cpp the public switches and counters.
#include "remat/remat.h"

#include <cmath>

#include "autograd/autograd_meta.h"
#include "dispatch/args/nn.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/op_ids/nn.h"
#include "dispatch/op_ids/nn_backward.h"
#include "dispatch/op_schema.h"
#include "dispatch/remat_hook.h"
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/memory.h"
#include "remat/remat_state.h"

namespace ember::remat {

namespace {

using Clock = std::chrono::steady_clock;

uint64_t g_clock = 0;            // counts calls: "time" for the staleness of a tensor

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

Record* find_record(const Storage* s) {
  auto& map = records();
  auto it = map.find(const_cast<Storage*>(s));
  return it == map.end() ? nullptr : it->second.get();
}

Record& record_for(const Tensor& t) {
  Storage* s = t.impl()->storage().get();
  auto& slot = records()[s];
  if (!slot) {
    slot = std::make_unique<Record>();
    slot->storage = s;
    slot->device = normalized(t.device());
    slot->nbytes = s->nbytes();
    slot->version = s->version();
    slot->last_use = g_clock;
  }
  return *slot;
}

void drop(Record* r) {
  auto& map = records();
  auto it = map.find(r->storage);
  if (it == map.end() || it->second.get() != r) return;
  std::unique_ptr<Record> owned = std::move(it->second);
  map.erase(it);
  if (owned->recipe) owned->recipe->outputs[owned->output_index].record = nullptr;
  if (owned->evicted) --evicted_count();
  owned.reset();  // may free memory and drop the records of the recipe's inputs
  update_active();
}

// The storage's memory goes back to the allocator; the Storage object (and every
// tensor geometry over it) stays, its data pointer null until rematerialize().
void evict(Record& r) {
  Storage empty(nullptr, 0, r.device, nullptr, nullptr);
  r.storage->swap_memory(empty);  // `empty` now owns the memory and frees it below
  r.evicted = true;
  ++evicted_count();
  memory::RematStats& st = device_state(r.device).stats;
  ++st.evictions;
  st.evicted_bytes += static_cast<int64_t>(r.nbytes);
  update_active();
}

bool unchanged(const std::vector<Ref>& inputs, const std::vector<uint64_t>& versions) {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].version() != versions[i]) return false;
  return true;
}

bool inputs_unchanged(const Recipe& rc) {
  if (!unchanged(rc.inputs, rc.input_versions)) return false;
  for (const Recipe::InPlaceStep& step : rc.steps)
    if (!unchanged(step.inputs, step.input_versions)) return false;
  return true;
}

bool evictable(const Record& r) {
  return !r.evicted && r.pins == 0 && r.recipe && r.nbytes > 0 &&
         r.storage->use_count() == r.internal_refs && r.storage->version() == r.version &&
         inputs_unchanged(*r.recipe);
}

// Dropout's output is its input times its keep mask, scaled, and backward keeps the
// mask (its second output). While the mask is resident, the output is recomputed as
// that product (dropout_backward's kernel, the same arithmetic as dropout's, so the
// same bits) instead of drawing the random numbers again: on 64 MiB of float32, 7 ms
// instead of 67. The fraction of the recipe's time that path takes is learnt from the
// recomputes made (starting at an eighth), for the eviction heuristic's cost.
double g_mask_path_fraction = 0.125;

const Record* resident_dropout_mask(const Recipe& rc) {
  if (rc.op != opid::dropout || rc.outputs.size() != 2 || !rc.inputs[0].defined()) return nullptr;
  const Record* mask = rc.outputs[1].record;
  return mask && !mask->evicted ? mask : nullptr;
}

// What recomputing rc is expected to take now.
double recompute_seconds(const Recipe& rc) {
  return resident_dropout_mask(rc) ? rc.seconds * g_mask_path_fraction : rc.seconds;
}

// The cost that evicting r lets in: recomputing r's recipe and the evicted tensors
// around it that a recompute (or a later recompute of those) would also need: its
// evicted ancestors, and the evicted outputs of its consumers (DTR's evicted
// neighbourhood). A tensor that backward does not read (no saved tensor holds it: a
// linear's output that only the following relu read) is needed again only to recompute
// a consumer's output; while none of those is evicted, evicting it costs nothing now,
// and a later eviction of such an output counts it as an evicted ancestor. Pricing
// those at their recipe's cost instead kept them resident and sent the budget after
// what backward reads, to be recomputed in chains.
double neighbourhood_cost(const Record& r) {
  std::vector<const Recipe*> seen{r.recipe.get()};
  double consumers_cost = 0;
  for (const Recipe* c : r.consumers)
    for (const Recipe::Output& o : c->outputs)
      if (o.record && o.record->evicted) {
        bool counted = false;
        for (const Recipe* s : seen) counted |= s == c;
        if (!counted) {
          seen.push_back(c);
          consumers_cost += recompute_seconds(*c);
        }
        break;
      }
  if (r.saved_refs == 0 && seen.size() == 1) return 0;
  // Evicting dropout's mask itself leaves only the random draw to recompute it.
  const bool is_dropout_mask = r.recipe->op == opid::dropout && r.output_index == 1;
  double cost = (is_dropout_mask ? r.recipe->seconds : recompute_seconds(*r.recipe)) + consumers_cost;
  std::vector<const Recipe*> stack{r.recipe.get()};
  auto visit = [&](const Recipe* rc) {
    for (const Recipe* s : seen)
      if (s == rc) return;
    seen.push_back(rc);
    stack.push_back(rc);
    cost += recompute_seconds(*rc);
  };
  while (!stack.empty() && seen.size() < 64) {
    const Recipe* rc = stack.back();
    stack.pop_back();
    for (const Ref& in : rc->inputs) {
      const Record* p = in.record();
      if (p && p->evicted && p->recipe) visit(p->recipe.get());
    }
  }
  return cost;
}

// Why choose_victim found nothing: the runtime's tensors on `device` by the first
// reason each cannot go, for the out-of-memory message.
std::string why_nothing_evictable(Device device) {
  int64_t evicted = 0, in_use = 0, held = 0, no_recipe = 0, changed = 0;
  for (auto& [storage, rec] : records()) {
    const Record& r = *rec;
    if (!(r.device == device)) continue;
    if (r.evicted) ++evicted;
    else if (r.pins > 0) ++in_use;
    else if (!r.recipe || r.nbytes == 0) ++no_recipe;
    else if (r.storage->use_count() != r.internal_refs) ++held;
    else ++changed;
  }
  return ::ember::detail::str(evicted, " tensors evicted already, ", in_use,
                              " in use by the running op, ", held, " held outside the tape (by you, a "
                              "module or a view), ", no_recipe, " that cannot be recomputed (parameters, "
                              "inputs, outputs of ops that write in place), ", changed,
                              " written in place since they were made");
}

Record* choose_victim(Device device) {
  Record* best = nullptr;
  double best_score = 0;
  for (auto& [storage, rec] : records()) {
    Record& r = *rec;
    if (!(r.device == device) || !evictable(r)) continue;  // device: normalized by the caller
    // DTR divides by the staleness itself; its square root evicted the expensive
    // outputs of early layers (attention's) less often on the encoder of
    // bench/memory_modes.py: 73 recomputes per step instead of 77 to 106.
    const double staleness = std::sqrt(static_cast<double>(g_clock - r.last_use) + 1.0);
    // A floor on the cost keeps ops too fast to time apart ordered by size and staleness.
    double cost = neighbourhood_cost(r) + 1e-9;
    double score = cost / (static_cast<double>(r.nbytes) * staleness);
    if (!best || score < best_score) {
      best = &r;
      best_score = score;
    }
  }
  return best;
}

void rematerialize(Record& r);

// Makes t's memory resident and pins it for a call; returns its record (or null).
Record* use(const Tensor& t) {
  if (!t.defined()) return nullptr;
  Record* r = find_record(t.impl()->storage().get());
  if (!r) return nullptr;
  if (r->evicted) rematerialize(*r);
  r->last_use = g_clock;
  ++r->pins;
  return r;
}

// Pins taken for one call, released (by storage, the records may have moved) at its end.
class Pins {
 public:
  void add(Record* r) {
    if (r) storages_.push_back(r->storage);
  }
  ~Pins() {
    if (storages_.empty()) return;
    std::lock_guard<std::recursive_mutex> lock(state_mutex());
    for (Storage* s : storages_)
      if (Record* r = find_record(s)) --r->pins;
  }

 private:
  SmallVector<Storage*, 6> storages_;
};

// Whether t's memory looks evicted, read without the lock: an evicted storage has no
// memory and no size (a tensor of no elements has no memory either: then the lock decides).
bool looks_evicted(const Tensor& t) {
  return t.defined() && t.impl()->storage()->data() == nullptr && t.impl()->storage()->nbytes() == 0;
}

void pin_call(const OpCall& call, Pins& pins) {
  // While another thread holds the runtime (recomputing, say), a worker thread of the
  // kernel it runs may dispatch here: waiting would deadlock. Its tensors are resident
  // (the kernel's own), so it goes on without pins; any call that may read evicted
  // memory waits.
  std::unique_lock<std::recursive_mutex> lock(state_mutex(), std::try_to_lock);
  if (!lock.owns_lock()) {
    bool evicted = false;
    for (const Tensor& t : call.inputs) evicted |= looks_evicted(t);
    for (const Tensor& t : call.outputs) evicted |= looks_evicted(t);
    if (!evicted) return;
    lock.lock();
  }
  ++g_clock;
  for (const Tensor& t : call.inputs) pins.add(use(t));
  for (const Tensor& t : call.outputs) pins.add(use(t));
}

Generator& generator_of(Device device) { return default_generator(device); }

// Runs the kernel of a recorded call again, with the generator as it was then.
void run_again(OpCall& call, const std::optional<PhiloxState>& rng) {
  NoGradGuard no_grad;
  std::optional<PhiloxState> now;
  if (rng) {
    now = generator_of(*call.device).state();
    generator_of(*call.device).set_state(*rng);
  }
  try {
    dispatch_backend_kernel(call);
  } catch (...) {
    if (now) generator_of(*call.device).set_state(*now);
    throw;
  }
  if (now) generator_of(*call.device).set_state(*now);
}

// Writes an in-place step into `out`, the recomputed output.
void replay(const Recipe::InPlaceStep& step, const Tensor& out, Device device, Pins& pins) {
  SmallVector<Tensor, 4> inputs;
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    if (step.is_output[i]) {
      inputs.push_back(out);
    } else if (step.inputs[i].defined()) {
      pins.add(use(step.inputs[i].alias()));
      inputs.push_back(step.inputs[i].alias());
    } else {
      inputs.push_back(Tensor());
    }
  }
  OpCall call(step.op, std::move(inputs), step.attrs);
  call.outputs.push_back(out);
  call.device = device;
  run_again(call, step.rng);
}

void rematerialize(Record& r) {
  std::shared_ptr<Recipe> rc = r.recipe;  // alive while we run it
  EMBER_CHECK(rc, "memory budget: an evicted tensor has no recipe (internal error)");
  Pins pins;
  SmallVector<Tensor, 4> inputs;
  for (const Ref& in : rc->inputs) {
    if (!in.defined()) {
      inputs.push_back(Tensor());
      continue;
    }
    pins.add(use(in.alias()));
    inputs.push_back(in.alias());
  }
  auto t0 = Clock::now();
  OpCall call(rc->op, std::move(inputs), rc->attrs);
  call.device = rc->device;
  if (const Record* mask = resident_dropout_mask(*rc)) {
    // output = input * mask * scale; the mask is resident and stays the recipe's.
    const Recipe::Output& m = rc->outputs[1];
    Tensor mask_tensor(make_intrusive<TensorImpl>(IntrusivePtr<Storage>(mask->storage), m.storage_offset,
                                                  m.sizes, m.strides, m.dtype));
    pins.add(use(mask_tensor));
    const double p = DropoutArgs::from(call).p;
    OpCall product(opid::dropout_backward, {call.inputs[0], mask_tensor},
                   DropoutBackwardArgs{.scale = p < 1.0 ? 1.0 / (1.0 - p) : 0.0}.attrs());
    product.device = rc->device;
    const auto t1 = Clock::now();
    run_again(product, std::nullopt);
    g_mask_path_fraction = 0.5 * g_mask_path_fraction + 0.5 * seconds_since(t1) / std::max(rc->seconds, 1e-9);
    call.outputs = {product.outputs[0], mask_tensor};
  } else {
    run_again(call, rc->rng);
  }
  EMBER_CHECK(call.outputs.size() == rc->outputs.size(), "memory budget: recomputing ",
              op_name(rc->op), " gave ", call.outputs.size(), " outputs, not ", rc->outputs.size());
  for (const Recipe::InPlaceStep& step : rc->steps)
    replay(step, call.outputs[step.output], rc->device, pins);
  for (size_t j = 0; j < rc->outputs.size(); ++j) {
    const Recipe::Output& o = rc->outputs[j];
    if (!o.record || !o.record->evicted) continue;
    const Tensor& out = call.outputs[j];
    Storage& fresh = *out.impl()->storage();
    EMBER_CHECK(out.sizes() == o.sizes && out.strides() == o.strides &&
                    out.storage_offset() == o.storage_offset && out.dtype() == o.dtype &&
                    fresh.nbytes() == o.record->nbytes,
                "memory budget: recomputing ", op_name(rc->op), " output ", j,
                " gave another layout than the first run (internal error)");
    o.record->storage->swap_memory(fresh);
    o.record->evicted = false;
    --evicted_count();
    o.record->last_use = g_clock;
  }
  memory::RematStats& st = device_state(rc->device).stats;
  ++st.recomputations;
  st.recompute_seconds += seconds_since(t0);
  update_active();
}

// Which of the call's inputs a recompute passes (false: left out), or nothing when the
// call cannot be run again because it writes into an input. Training-mode batch norm
// writes its running statistics, which its outputs do not read: the recompute leaves
// them out, computing the same outputs and writing nothing.
std::optional<std::vector<bool>> recompute_inputs(const OpCall& call) {
  std::vector<bool> keep(call.inputs.size(), true);
  if (call.op == opid::batch_norm) {
    if (BatchNormArgs::from(call).training) keep[1] = keep[2] = false;
    return keep;
  }
  const OpSchema& s = op_schema(call.op);
  for (uint8_t i = 0; i < s.num_inputs; ++i)
    if (s.inputs[i].mutated) return std::nullopt;
  return keep;
}

// Keeps the recipe of a recorded call's fresh outputs, and a Ref on each in `keep`
// (the call's backward node holds them: the recipe lives as long as the graph).
void keep_recipe(const OpCall& call, double seconds, std::optional<PhiloxState> rng,
                 std::vector<Ref>& keep) {
  const std::optional<std::vector<bool>> passed = recompute_inputs(call);
  if (call.outputs.empty() || !passed) return;
  for (size_t j = 0; j < call.outputs.size(); ++j) {
    const Tensor& out = call.outputs[j];
    if (!out.defined() || out.impl()->storage()->nbytes() == 0) return;
    const Storage* s = out.impl()->storage().get();
    if (find_record(s)) return;  // not fresh: an input's memory, or already made
    for (const Tensor& in : call.inputs)
      if (in.defined() && in.impl()->storage().get() == s) return;
    for (size_t k = 0; k < j; ++k)
      if (call.outputs[k].impl()->storage().get() == s) return;
  }
  auto rc = std::make_shared<Recipe>();
  rc->op = call.op;
  rc->attrs = call.attrs;
  rc->device = *call.device;  // as the kernel ran: the recompute runs there too
  rc->rng = rng;
  rc->seconds = seconds;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const Tensor& in = call.inputs[i];
    const bool pass = in.defined() && (*passed)[i];
    rc->input_versions.push_back(pass ? in.version() : 0);
    rc->inputs.push_back(pass ? Ref(in) : Ref());
  }
  for (const Ref& in : rc->inputs)
    if (Record* p = in.record()) p->consumers.push_back(rc.get());
  for (size_t j = 0; j < call.outputs.size(); ++j) {
    const Tensor& out = call.outputs[j];
    keep.emplace_back(out);
    Record& r = *keep.back().record();
    r.recipe = rc;
    r.output_index = j;
    rc->outputs.push_back({&r, out.sizes(), out.strides(), out.storage_offset(), out.dtype()});
  }
}

// Adds a recorded in-place call to the recipe of the tensor it wrote, when that tensor
// is an output of a recipe written whole (relu_ on a batch norm's output); the record
// takes the new version, so the tensor stays evictable. Any other write leaves the
// record's version behind: then it is never evicted.
void keep_in_place_step(const OpCall& call, double seconds, std::optional<PhiloxState> rng) {
  if (call.outputs.size() != 1) return;
  const Tensor& out = call.outputs[0];
  Record* r = find_record(out.impl()->storage().get());
  if (!r || !r->recipe || r->evicted) return;
  Recipe& rc = *r->recipe;
  const Recipe::Output& o = rc.outputs[r->output_index];
  if (!(out.sizes() == o.sizes && out.strides() == o.strides &&
        out.storage_offset() == o.storage_offset && out.dtype() == o.dtype))
    return;
  const OpSchema& schema = op_schema(call.op);
  Recipe::InPlaceStep step;
  step.output = r->output_index;
  step.op = call.op;
  step.attrs = call.attrs;
  step.rng = rng;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const Tensor& in = call.inputs[i];
    const bool is_out = in.defined() && in.impl()->storage().get() == out.impl()->storage().get();
    if (is_out && !(in.sizes() == out.sizes() && in.strides() == out.strides() &&
                    in.storage_offset() == out.storage_offset()))
      return;  // reads another view of what it writes
    if (!is_out && i < schema.num_inputs && schema.inputs[i].mutated) return;
    step.is_output.push_back(is_out);
    step.input_versions.push_back(in.defined() && !is_out ? in.version() : 0);
    step.inputs.push_back(in.defined() && !is_out ? Ref(in) : Ref());
  }
  rc.steps.push_back(std::move(step));
  rc.seconds += seconds;
  r->version = out.version();
}

Device first_input_device(const OpCall& call) {
  for (const Tensor& t : call.inputs)
    if (t.defined()) return t.device();
  return call.device ? *call.device : kCPU;
}

}  // namespace

// ---- Ref ----

Ref::Ref(const Tensor& t, Holder holder) : holder_(holder) {
  if (!t.defined()) return;
  std::lock_guard<std::recursive_mutex> lock(state_mutex());
  Record& r = record_for(t);
  ++r.internal_refs;
  if (holder == Holder::saved_for_backward) ++r.saved_refs;
  record_ = &r;
  alias_ = autograd::alias_without_history(t);
}

Ref::~Ref() {
  if (!record_) return;
  std::lock_guard<std::recursive_mutex> lock(state_mutex());
  if (holder_ == Holder::saved_for_backward) --record_->saved_refs;
  // The last handle: the record goes (and with it its recipe's handles on the inputs)
  // before the alias, which may be the last holder of the memory.
  if (--record_->internal_refs == 0) drop(record_);
  alias_ = Tensor();
}

Ref& Ref::operator=(Ref&& o) noexcept {
  if (this != &o) {
    Ref gone(std::move(*this));
    alias_ = std::move(o.alias_);
    record_ = o.record_;
    holder_ = o.holder_;
    o.record_ = nullptr;
  }
  return *this;
}

Tensor Ref::get() const {
  if (!defined()) return Tensor();
  std::lock_guard<std::recursive_mutex> lock(state_mutex());
  if (record_ && record_->evicted) rematerialize(*record_);
  if (record_) record_->last_use = g_clock;
  return autograd::alias_without_history(alias_);
}

Recipe::~Recipe() {
  for (const Ref& in : inputs) {
    if (Record* p = in.record()) {
      auto& cs = p->consumers;
      for (size_t i = 0; i < cs.size(); ++i)
        if (cs[i] == this) {
          cs[i] = cs.back();
          cs.pop_back();
          break;
        }
    }
  }
}

// ---- the dispatcher's entries ----

void run_call(OpCall& call) {
  Pins pins;
  pin_call(call, pins);
  dispatch_backend_kernel(call);
}

void record_call(OpCall& call, bool is_view_op, std::vector<Ref>& keep) {
  if (is_view_op) return run_call(call);
  const bool in_place = call.has_preset_output();  // before the kernel fills the outputs
  const Device device = first_input_device(call);
  const PhiloxState before = generator_of(device).state();
  Pins pins;
  pin_call(call, pins);
  auto t0 = Clock::now();
  dispatch_backend_kernel(call);
  const double seconds = seconds_since(t0);
  const PhiloxState after = generator_of(device).state();
  std::optional<PhiloxState> rng;
  if (after.seed != before.seed || after.offset != before.offset) rng = before;
  std::lock_guard<std::recursive_mutex> lock(state_mutex());
  if (in_place) keep_in_place_step(call, seconds, rng);
  else keep_recipe(call, seconds, rng, keep);
}

// ---- bookkeeping shared with budget.cpp ----

void make_room(Device device, size_t nbytes) {
  device = normalized(device);
  // An allocation by a worker thread of a kernel that another thread runs while it
  // holds the runtime (a recompute) must not wait for it: it is not held to the budget.
  std::unique_lock<std::recursive_mutex> lock(state_mutex(), std::try_to_lock);
  if (!lock.owns_lock()) return;
  const std::optional<int64_t> budget = device_state(device).budget;
  if (!budget) return;
  const int64_t need = static_cast<int64_t>((nbytes + 511) / 512 * 512);
  while (true) {
    const int64_t allocated = memory_stats(device).allocated_bytes;
    if (allocated + need <= *budget) return;
    Record* victim = choose_victim(device);
    if (!victim)
      throw OutOfMemoryError(::ember::detail::str(
          "memory budget: cannot allocate ", nbytes, " bytes on ", device.str(), ": ", allocated,
          " bytes are allocated against a budget of ", *budget, " bytes, and no tensor left can "
          "be evicted (", why_nothing_evictable(device), "). Raise the budget "
          "(ember.memory.set_budget) or lower the batch size."));
    evict(*victim);
  }
}

}  // namespace ember::remat
