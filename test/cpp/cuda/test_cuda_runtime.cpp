// The CUDA runtime: devices, streams, events, the CUDA caching allocator, pinned
// memory and transfers. Without a GPU only the "no GPU" behaviour is checked; the
// rest reports "skipped: ..." and passes, and runs in full where a GPU exists
// (scripts/gpu_check.sh).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

const char* no_gpu_reason() {
  return cuda::is_built() ? "no CUDA GPU is available" : "ember was built without CUDA";
}

#define REQUIRE_GPU()                                       \
  do {                                                      \
    if (!cuda::is_available()) {                            \
      WARN("skipped: " << no_gpu_reason());                 \
      return;                                               \
    }                                                       \
  } while (0)

const Device kCuda(DeviceType::CUDA, 0);

const std::vector<DType> kAllDTypes = {kBool,    kUInt8,     kInt8,    kInt16,  kInt32,
                                       kInt64,   kFloat16,   kBFloat16, kFloat32, kFloat64};

// Distinct small values every dtype holds exactly (0/1 for bool).
Tensor sample(const IntList& sizes, DType dtype) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Tensor values = remainder(arange(n, TensorOptions(kInt64)), dtype == kBool ? 2 : 100);
  return values.to(dtype).view(sizes);
}

// Element-wise equality of two CPU tensors of one shape (compared as float64).
void check_same(const Tensor& actual, const Tensor& expected) {
  REQUIRE(actual.is_cpu());
  REQUIRE(actual.sizes() == expected.sizes());
  Tensor a = actual.to(kFloat64).contiguous(), e = expected.to(kFloat64).contiguous();
  for (int64_t i = 0; i < a.numel(); ++i) {
    INFO("element " << i);
    CHECK(a.data_ptr<double>()[i] == e.data_ptr<double>()[i]);
  }
}

bool message_has(const std::exception& e, const std::string& part) {
  return std::string(e.what()).find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("without a GPU, ember::cuda says so clearly", "[cuda]") {
  if (cuda::is_available()) {
    CHECK(cuda::device_count() > 0);
    return;
  }
  CHECK(cuda::device_count() == 0);
  const std::string reason = no_gpu_reason();
  try {
    cuda::current_device();
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(message_has(e, reason));
  }
  try {
    empty({2}, TensorOptions(kFloat32).device(Device("cuda")));
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(message_has(e, "cannot allocate memory on cuda"));
    CHECK(message_has(e, reason));
  }
  CHECK_THROWS_AS(cuda::Stream::create(), Error);
  CHECK_THROWS_AS(cuda::current_stream(), Error);
  CHECK_THROWS_AS(cuda::synchronize(), Error);
  CHECK_THROWS_AS(cuda::memory_allocated(), Error);
  CHECK_THROWS_AS(memory_stats(kCuda), Error);
  CHECK_THROWS_AS(zeros({2}).pin_memory(), Error);
  CHECK_FALSE(zeros({2}).is_pinned());
  CHECK_THROWS_AS(zeros({2}).cuda(), Error);
  cuda::empty_cache();  // nothing cached: a no-op, as in PyTorch
  cuda::DeviceGuard stays(-1);  // -1 leaves the device alone: no GPU needed
  cuda::Event event;
  CHECK(event.query());  // never recorded: nothing to wait for
  CHECK_THROWS_AS(event.record(), Error);
}

TEST_CASE("record_stream and elapsed_time check their arguments", "[cuda]") {
  cuda::Stream stream = cuda::Stream::wrap(0, nullptr);
  try {
    zeros({2}).record_stream(stream);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(message_has(e, "record_stream: expected a CUDA tensor"));
  }
  if (!cuda::is_built()) return;
  cuda::Event a, b;
  CHECK_THROWS_WITH(a.elapsed_time(b), Catch::Contains("enable_timing"));
  cuda::Event c(true), d(true);
  CHECK_THROWS_WITH(c.elapsed_time(d), Catch::Contains("recorded"));
}

TEST_CASE("devices: current device, set_device, DeviceGuard", "[cuda]") {
  REQUIRE_GPU();
  int n = cuda::device_count();
  int current = cuda::current_device();
  CHECK(current >= 0);
  CHECK(current < n);
  {
    cuda::DeviceGuard guard(n - 1);
    CHECK(cuda::current_device() == n - 1);
  }
  CHECK(cuda::current_device() == current);
  CHECK_THROWS_WITH(cuda::set_device(n), Catch::Contains("invalid CUDA device index"));
  CHECK_THROWS_AS(empty({2}, TensorOptions().device(Device(DeviceType::CUDA, n))), Error);
  Tensor x = empty({2}, TensorOptions().device(Device("cuda")));
  CHECK(x.device() == Device(DeviceType::CUDA, current));  // "cuda" is the current device
  CHECK(x.to(Device("cuda")).is_same(x));                 // already there: no copy
  cuda::synchronize();
}

TEST_CASE("transfers round trip every dtype, contiguous or not", "[cuda]") {
  REQUIRE_GPU();
  for (DType dtype : kAllDTypes) {
    INFO("dtype " << dtype_name(dtype));
    Tensor host = sample({4, 6}, dtype);
    Tensor dev = host.cuda();
    CHECK(dev.is_cuda());
    CHECK(dev.dtype() == dtype);
    check_same(dev.cpu(), host);
    // A non-contiguous host source, and a non-contiguous device source.
    check_same(host.t().cuda().cpu(), host.t());
    check_same(dev.t().cpu(), host.t());
    check_same(dev.slice(1, 1, 6, 2).cpu(), host.slice(1, 1, 6, 2));
    // Copies on the device: contiguous, gathered, into a strided destination.
    check_same(dev.clone().cpu(), host);
    check_same(dev.t().contiguous().cpu(), host.t().contiguous());
    Tensor dst = zeros({6, 4}, TensorOptions(dtype).device(kCuda)).t();
    dst.copy_(dev);
    check_same(dst.cpu(), host);
    // Into a strided host destination.
    Tensor host_dst = zeros({6, 4}, TensorOptions(dtype)).t();
    host_dst.copy_(dev);
    check_same(host_dst, host);
  }
}

TEST_CASE("transfers broadcast and convert dtypes on the host side", "[cuda]") {
  REQUIRE_GPU();
  Tensor row = sample({5}, kInt64);
  Tensor dst = empty({3, 5}, TensorOptions(kFloat32).device(kCuda));
  dst.copy_(row);  // broadcast and cast before the transfer
  check_same(dst.cpu(), row.to(kFloat32).expand({3, 5}));
  Tensor host = empty({3, 5}, TensorOptions(kFloat64));
  host.copy_(dst);  // cast after the transfer
  check_same(host, row.to(kFloat64).expand({3, 5}));
  Tensor dev_row = row.cuda();
  Tensor dev_dst = empty({2, 5}, TensorOptions(kInt64).device(kCuda));
  dev_dst.copy_(dev_row);  // broadcast on the device
  check_same(dev_dst.cpu(), row.expand({2, 5}));
  Tensor from_device = empty({2, 5}, TensorOptions(kInt64));
  from_device.copy_(dev_row);  // broadcast on the device, then transfer
  check_same(from_device, row.expand({2, 5}));
}

TEST_CASE("copies between CUDA tensors convert every dtype as the CPU does", "[cuda]") {
  REQUIRE_GPU();
  for (DType from : kAllDTypes) {
    for (DType to : kAllDTypes) {
      INFO(dtype_name(from) << " -> " << dtype_name(to));
      // Negative values and fractions too, where both dtypes define the result
      // (a negative float to uint8 is undefined in C++).
      Tensor host = sample({3, 4}, from);
      if (from != kBool && from != kUInt8 && !(to == kUInt8 && is_floating(from)))
        host = sub(host.to(kFloat64), 50.25).to(from);
      Tensor dev = host.cuda();
      check_same(dev.to(to).cpu(), host.to(to));
      Tensor strided = empty({4, 3}, TensorOptions(to).device(kCuda)).t();
      strided.copy_(dev);
      check_same(strided.cpu(), host.to(to));
    }
  }
}

TEST_CASE("fill_ and the factories built on it work on CUDA for every dtype", "[cuda]") {
  REQUIRE_GPU();
  for (DType dtype : kAllDTypes) {
    INFO("dtype " << dtype_name(dtype));
    check_same(zeros({3, 2}, TensorOptions(dtype).device(kCuda)).cpu(), zeros({3, 2}, TensorOptions(dtype)));
    check_same(ones({7}, TensorOptions(dtype).device(kCuda)).cpu(), ones({7}, TensorOptions(dtype)));
    Tensor strided = zeros({4, 4}, TensorOptions(dtype).device(kCuda));
    strided.slice(1, 0, 4, 2).fill_(1);
    Tensor expected = zeros({4, 4}, TensorOptions(dtype));
    expected.slice(1, 0, 4, 2).fill_(1);
    check_same(strided.cpu(), expected);
  }
}

TEST_CASE("unsupported CUDA dtypes raise NotImplementedError naming op and device", "[cuda]") {
  REQUIRE_GPU();
  Tensor x = ones({3}, TensorOptions().device(kCuda));
  CHECK(add(x, x).sum().item<float>() == 6.0f);
  Tensor ints = ones({2, 2}, TensorOptions(kInt64).device(kCuda));
  try {
    mm(ints, ints);  // cuBLAS has no integer products
    FAIL("expected an error");
  } catch (const NotImplementedError& e) {
    CHECK(message_has(e, "mm"));
    CHECK(message_has(e, "CUDA"));
  }
  // Printing and item() go through the host.
  CHECK(ones({1}, TensorOptions().device(kCuda)).item<float>() == 1.0f);
  CHECK(x.str().find("device='cuda:0'") != std::string::npos);
}

TEST_CASE("streams: pools, priorities, the current stream and StreamGuard", "[cuda]") {
  REQUIRE_GPU();
  cuda::Stream def = cuda::default_stream();
  CHECK(def.id() == 0);
  CHECK(cuda::current_stream() == def);
  cuda::Stream s = cuda::Stream::create();
  CHECK(s != def);
  CHECK(s.device() == cuda::current_device());
  cuda::Stream high = cuda::Stream::create(-1, -1);
  CHECK(high.priority() < s.priority());
  {
    cuda::StreamGuard guard(s);
    CHECK(cuda::current_stream() == s);
    Tensor x = ones({1000}, TensorOptions().device(kCuda));  // queued on s
    check_same(x.cpu(), ones({1000}));
  }
  CHECK(cuda::current_stream() == def);
  s.synchronize();
  CHECK(s.query());
}

TEST_CASE("events order work across streams and time it", "[cuda]") {
  REQUIRE_GPU();
  cuda::Stream producer = cuda::Stream::create(), consumer = cuda::Stream::create();
  Tensor big = empty({1 << 22}, TensorOptions().device(kCuda));
  cuda::Event start(true), done(true);
  {
    cuda::StreamGuard guard(producer);
    start.record();
    for (int i = 0; i < 5; ++i) big.fill_(i);
    done.record();
  }
  big.record_stream(producer);
  done.wait(consumer);  // the consumer's copy starts after the last fill
  {
    cuda::StreamGuard guard(consumer);
    Tensor host = big.cpu();
    CHECK(host.data_ptr<float>()[0] == 4.0f);
    CHECK(host.data_ptr<float>()[(1 << 22) - 1] == 4.0f);
  }
  done.synchronize();
  CHECK(done.query());
  CHECK(start.elapsed_time(done) >= 0.0f);
  cuda::Event original(true);
  cuda::Event copy = original;  // copies share one event
  copy.record(producer);
  original.synchronize();
  CHECK(done.elapsed_time(original) >= 0.0f);  // the copy recorded the original
  consumer.wait_stream(producer);
  cuda::synchronize();
}

TEST_CASE("the CUDA caching allocator: statistics, reuse, no cudaMalloc in a steady loop",
          "[cuda]") {
  REQUIRE_GPU();
  cuda::synchronize();
  cuda::empty_cache();
  cuda::reset_peak_memory_stats();
  int64_t base = cuda::memory_allocated();
  {
    Tensor x = empty({1000}, TensorOptions(kFloat32).device(kCuda));  // 4000 B -> 4096 B
    CHECK(cuda::memory_allocated() == base + 4096);
    CHECK(cuda::memory_reserved() >= cuda::memory_allocated());
    CHECK(memory_stats(kCuda).allocated_bytes == cuda::memory_allocated());
  }
  CHECK(cuda::memory_allocated() == base);
  CHECK(cuda::max_memory_allocated() >= base + 4096);
  for (int warmup = 0; warmup < 2; ++warmup) {
    Tensor a = empty({1 << 10}, TensorOptions().device(kCuda));
    Tensor b = empty({1 << 20}, TensorOptions().device(kCuda));
  }
  int64_t raw_allocs = cuda::memory_stats().num_raw_allocs;
  for (int i = 0; i < 100; ++i) {
    Tensor a = empty({1 << 10}, TensorOptions().device(kCuda));
    Tensor b = empty({1 << 20}, TensorOptions().device(kCuda));
    b.fill_(i);
  }
  CHECK(cuda::memory_stats().num_raw_allocs == raw_allocs);
  cuda::synchronize();
  cuda::empty_cache();
  CHECK(cuda::memory_reserved() <= cuda::max_memory_reserved());
  CHECK(cuda::memory_summary().find("cuda:0") != std::string::npos);
  try {
    empty({int64_t(1) << 50}, TensorOptions(kUInt8).device(kCuda));
    FAIL("expected an out-of-memory error");
  } catch (const OutOfMemoryError& e) {
    CHECK(message_has(e, "CUDA out of memory"));
  }
}

TEST_CASE("record_stream delays reuse until the other stream is done", "[cuda]") {
  REQUIRE_GPU();
  cuda::synchronize();
  cuda::Stream side = cuda::Stream::create();
  // 37 MiB: a size no other cached block fits as well, so reuse picks this one.
  Tensor x = empty({37 << 20}, TensorOptions(kUInt8).device(kCuda));
  void* block = x.data_ptr();
  x.record_stream(side);
  x = Tensor();  // freed, but the block waits for an event recorded on `side`
  CHECK(cuda::memory_summary().find("blocks awaiting stream events: 1") != std::string::npos);
  side.synchronize();
  int64_t raw_allocs = cuda::memory_stats().num_raw_allocs;
  Tensor y = empty({37 << 20}, TensorOptions(kUInt8).device(kCuda));
  CHECK(y.data_ptr() == block);  // reused once the event reported completion
  CHECK(cuda::memory_stats().num_raw_allocs == raw_allocs);
  CHECK(cuda::memory_summary().find("blocks awaiting stream events: 0") != std::string::npos);
  if (cuda::device_count() > 1)
    CHECK_THROWS_AS(y.record_stream(cuda::Stream::create(1)), Error);
}

TEST_CASE("pinned memory: pin_memory, is_pinned, non_blocking copies", "[cuda]") {
  REQUIRE_GPU();
  Tensor host = sample({64, 3}, kFloat32);
  CHECK_FALSE(host.is_pinned());
  Tensor pinned = host.t().pin_memory();
  CHECK(pinned.is_pinned());
  CHECK(pinned.is_cpu());
  CHECK(pinned.pin_memory().is_same(pinned));
  check_same(pinned, host.t());
  Tensor dev = pinned.cuda(-1, /*non_blocking=*/true);
  Tensor back = empty({3, 64}).pin_memory();
  back.copy_(dev, /*non_blocking=*/true);
  cuda::synchronize();
  check_same(back, host.t());
  CHECK(memory_stats(kCuda).allocated_bytes > 0);
}

TEST_CASE("from_blob views CUDA memory and refuses host memory as CUDA's", "[cuda]") {
  std::vector<float> host(4, 1.0f);
  if (!cuda::is_available()) {
    CHECK_THROWS_WITH(from_blob(host.data(), {4}, nullptr, TensorOptions(kFloat32).device(kCuda)),
                      Catch::Contains(cuda::is_built() ? "no CUDA GPU" : "built without CUDA"));
    WARN("skipped: the rest needs a GPU");
    return;
  }
  Tensor owner = arange(6, TensorOptions(kFloat32).device(kCuda));
  bool released = false;
  {
    Tensor view = from_blob(owner.data_ptr(), {2, 3}, [&](void*) { released = true; },
                            TensorOptions(kFloat32).device(Device(DeviceType::CUDA)));
    CHECK(view.device() == kCuda);
    view.mul_(2);
    check_same(owner.cpu(), arange(6, TensorOptions(kFloat32)) * 2);
  }
  CHECK(released);
  CHECK_THROWS_AS(from_blob(host.data(), {4}, nullptr, TensorOptions(kFloat32).device(kCuda)),
                  ValueError);
  CHECK_THROWS_WITH(from_blob(host.data(), {4}, nullptr, TensorOptions(kFloat32).device(kCuda)),
                    Catch::Contains("is not CUDA device memory"));
}
