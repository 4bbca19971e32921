// The op profiler's recording: per-thread event buffers (each behind its own,
// uncontended mutex, so stop() on another thread can collect them), a per-thread
// stack of open ranges for the nesting, and a session number so that a range
// opened in one run and closed after it is never counted in the next one.
#include "dispatch/profiler_hook.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "ember/error.h"
#include "ember/memory.h"

namespace ember::profiler {
namespace detail {

std::atomic<bool> g_enabled{false};

namespace {

std::atomic<uint64_t> g_session{0};
std::atomic<uint64_t> g_next_id{1};
bool g_record_shapes = false;   // written by start() before g_enabled turns true
bool g_profile_memory = false;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t os_thread_id() {
#if defined(__linux__)
  return static_cast<int64_t>(::syscall(SYS_gettid));
#else
  return static_cast<int64_t>(std::hash<std::thread::id>()(std::this_thread::get_id()));
#endif
}

struct OpenEntry {
  uint64_t id;
  uint64_t session;
};

struct ThreadBuffer {
  std::mutex mu;  // guards events (stop() reads them from another thread)
  std::vector<Event> events;
  std::vector<OpenEntry> open;  // touched by the owning thread only
  int64_t tid = os_thread_id();
};

std::mutex g_registry_mu;
std::vector<std::shared_ptr<ThreadBuffer>>& registry() {
  static auto* buffers = new std::vector<std::shared_ptr<ThreadBuffer>>();  // never destroyed:
  return *buffers;  // threads may record during static destruction
}

ThreadBuffer& this_thread_buffer() {
  thread_local std::shared_ptr<ThreadBuffer> mine = [] {
    auto b = std::make_shared<ThreadBuffer>();
    std::lock_guard<std::mutex> lock(g_registry_mu);
    registry().push_back(b);
    return b;
  }();
  return *mine;
}

int64_t allocated_bytes(const Device& device) {
  return memory_stats(device).allocated_bytes;
}

}  // namespace

Range open_range(std::optional<Device> device) {
  ThreadBuffer& buf = this_thread_buffer();
  Range r;
  r.session = g_session.load(std::memory_order_acquire);
  // Ranges left open by an earlier run are not anyone's parent in this one.
  while (!buf.open.empty() && buf.open.back().session != r.session) buf.open.pop_back();
  r.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  r.parent_id = buf.open.empty() ? 0 : buf.open.back().id;
  r.depth = static_cast<int>(buf.open.size());
  buf.open.push_back({r.id, r.session});
  if (g_profile_memory) {
    r.cpu_memory_before = allocated_bytes(kCPU);
    if (device && device->is_cuda()) {
      r.memory_device = device;
      r.device_memory_before = allocated_bytes(*device);
    }
  }
  r.start_ns = now_ns();
  return r;
}

void close_range(const Range& range, Event&& event) {
  int64_t end = now_ns();
  ThreadBuffer& buf = this_thread_buffer();
  // Pop by id: a Python context manager may end out of order (a generator).
  for (size_t i = buf.open.size(); i-- > 0;)
    if (buf.open[i].id == range.id) {
      buf.open.erase(buf.open.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  if (!enabled()) return;
  event.id = range.id;
  event.parent_id = range.parent_id;
  event.depth = range.depth;
  event.start_ns = range.start_ns;
  event.end_ns = end;
  event.thread_id = buf.tid;
  if (g_profile_memory && range.session == g_session.load(std::memory_order_acquire)) {
    event.cpu_memory_bytes = allocated_bytes(kCPU) - range.cpu_memory_before;
    if (range.memory_device)
      event.device_memory_bytes = allocated_bytes(*range.memory_device) - range.device_memory_before;
  }
  std::lock_guard<std::mutex> lock(buf.mu);
  // Checked under the buffer's lock: stop() bumps the session before it collects.
  if (range.session != g_session.load(std::memory_order_acquire) || !enabled()) return;
  buf.events.push_back(std::move(event));
}

namespace {
std::optional<Device> device_of(const OpCall& call) {
  if (call.device) return call.device;
  for (const Tensor& t : call.inputs)
    if (t.defined()) return t.device();
  for (const Tensor& t : call.outputs)
    if (t.defined()) return t.device();
  return std::nullopt;
}
}  // namespace

OpRange::OpRange(const OpCall& call) : call_(call) {
  // Shapes before the op runs: a kernel may move its inputs out of the call.
  if (g_record_shapes) {
    shapes_.reserve(call.inputs.size());
    for (const Tensor& t : call.inputs)
      shapes_.emplace_back(t.defined() ? std::vector<int64_t>(t.sizes().begin(), t.sizes().end())
                                       : std::vector<int64_t>());
  }
  range_ = open_range(g_profile_memory ? device_of(call) : std::nullopt);
}

OpRange::~OpRange() {
  Event e;
  e.name = call_.name();
  e.kind = EventKind::Op;
  if (auto d = device_of(call_)) e.device = d->str();
  e.input_shapes = std::move(shapes_);
  close_range(range_, std::move(e));
}

}  // namespace detail

void start(const ProfilerConfig& config) {
  std::lock_guard<std::mutex> lock(detail::g_registry_mu);
  if (detail::g_enabled.load()) throw Error("profiler: the profiler is already running");
  for (auto& b : detail::registry()) {
    std::lock_guard<std::mutex> buf_lock(b->mu);
    b->events.clear();
  }
  detail::g_record_shapes = config.record_shapes;
  detail::g_profile_memory = config.profile_memory;
  detail::g_session.fetch_add(1, std::memory_order_acq_rel);
  detail::g_enabled.store(true, std::memory_order_release);
}

std::vector<Event> stop() {
  std::lock_guard<std::mutex> lock(detail::g_registry_mu);
  std::vector<Event> all;
  if (!detail::g_enabled.load()) return all;
  detail::g_enabled.store(false, std::memory_order_release);
  detail::g_session.fetch_add(1, std::memory_order_acq_rel);
  auto& buffers = detail::registry();
  for (auto& b : buffers) {
    std::lock_guard<std::mutex> buf_lock(b->mu);
    std::move(b->events.begin(), b->events.end(), std::back_inserter(all));
    b->events.clear();
    b->events.shrink_to_fit();
  }
  // Buffers of threads that have ended (only the registry holds them) go.
  buffers.erase(std::remove_if(buffers.begin(), buffers.end(),
                               [](const std::shared_ptr<detail::ThreadBuffer>& b) {
                                 return b.use_count() == 1;
                               }),
                buffers.end());
  std::stable_sort(all.begin(), all.end(), [](const Event& a, const Event& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.depth < b.depth;
  });
  return all;
}

bool is_enabled() { return detail::enabled(); }

ProfilerGuard::ProfilerGuard(const ProfilerConfig& config) { start(config); }
ProfilerGuard::~ProfilerGuard() {
  if (running_) profiler::stop();
}
std::vector<Event> ProfilerGuard::stop() {
  if (!running_) return {};
  running_ = false;
  return profiler::stop();
}

RecordFunction::RecordFunction(const std::string& name, EventKind kind) {
  if (!detail::enabled()) return;
  range_ = std::make_unique<detail::Range>(detail::open_range());
  name_ = name;
  kind_ = kind;
}

RecordFunction::~RecordFunction() { end(); }

void RecordFunction::end() {
  if (!range_) return;
  Event e;
  e.name = std::move(name_);
  e.kind = kind_;
  detail::close_range(*range_, std::move(e));
  range_.reset();
}

}  // namespace ember::profiler
