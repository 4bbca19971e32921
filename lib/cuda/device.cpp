// CUDA devices: how many, which is current, waiting for one, and the error check
// every CUDA call goes through.
#include <atomic>
#include <string>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/device_error.h"
#include "cuda/launch.h"
#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda {

namespace detail {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  // Clears a non-sticky error so that later calls do not report it again.
  (void)cudaGetLastError();
  std::string msg = ::ember::detail::str("CUDA error: ", cudaGetErrorString(err), " (",
                                         cudaGetErrorName(err), ") in ", call, " at ", file, ":",
                                         line);
  if (err == cudaErrorMemoryAllocation) throw OutOfMemoryError(msg);
  throw Error(msg);
}

void require_gpu(const char* what) {
  EMBER_CHECK(device_count() > 0, what, ": no CUDA GPU is available");
}

int resolve_device(int device, const char* what) {
  require_gpu(what);
  if (device < 0) return current_device();
  EMBER_CHECK(device < device_count(), what, ": invalid CUDA device index ", device, " (",
              device_count(), " device", device_count() == 1 ? "" : "s", " available)");
  return device;
}

}  // namespace detail

bool is_built() { return true; }

bool is_available() { return device_count() > 0; }

int device_count() {
  // Asked once: the answer cannot change while the process runs. No driver or no
  // device reads as zero devices, not as an error.
  static int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      n = 0;
    }
    return n;
  }();
  return count;
}

int current_device() {
  detail::require_gpu("current_device");
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void set_device(int device) {
  EMBER_CHECK(device >= 0, "set_device: invalid CUDA device index ", device);
  EMBER_CUDA_CHECK(cudaSetDevice(detail::resolve_device(device, "set_device")));
}

void synchronize(int device) {
  int index = detail::resolve_device(device, "synchronize");
  DeviceGuard guard(index);
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  raise_device_error(index);
}

DeviceProperties get_device_properties(int device) {
  const int index = detail::resolve_device(device, "get_device_properties");
  cudaDeviceProp p{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  DeviceProperties out;
  out.name = p.name;
  out.major = p.major;
  out.minor = p.minor;
  out.total_memory = static_cast<int64_t>(p.totalGlobalMem);
  out.multi_processor_count = p.multiProcessorCount;
  out.max_threads_per_multi_processor = p.maxThreadsPerMultiProcessor;
  out.warp_size = p.warpSize;
  out.L2_cache_size = p.l2CacheSize;
  out.is_integrated = p.integrated != 0;
  out.is_multi_gpu_board = p.isMultiGpuBoard != 0;
  out.pci_bus_id = p.pciBusID;
  out.pci_device_id = p.pciDeviceID;
  out.pci_domain_id = p.pciDomainID;
  // The UUID as nvidia-smi prints it: GPU-8-4-4-4-12 hex digits.
  static const char* hex = "0123456789abcdef";
  out.uuid = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.uuid += '-';
    const auto byte = static_cast<unsigned char>(p.uuid.bytes[i]);
    out.uuid += hex[byte >> 4];
    out.uuid += hex[byte & 15];
  }
  return out;
}

std::pair<int64_t, int64_t> mem_get_info(int device) {
  DeviceGuard guard(detail::resolve_device(device, "mem_get_info"));
  size_t free = 0, total = 0;
  EMBER_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return {static_cast<int64_t>(free), static_cast<int64_t>(total)};
}

int device_of_pointer(const void* ptr, const char* what) {
  detail::require_gpu(what);
  cudaPointerAttributes attr{};
  cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
  if (err != cudaSuccess) (void)cudaGetLastError();
  const bool on_device = err == cudaSuccess && (attr.type == cudaMemoryTypeDevice ||
                                                attr.type == cudaMemoryTypeManaged);
  EMBER_CHECK_VALUE(on_device, what, ": the pointer ", ptr, " is not CUDA device memory (",
                    err != cudaSuccess ? cudaGetErrorString(err)
                    : attr.type == cudaMemoryTypeHost ? "it is pinned host memory"
                                                      : "it is plain host memory",
                    ")");
  return attr.device;
}

DeviceGuard::DeviceGuard(int device) {
  if (device < 0) return;
  int target = detail::resolve_device(device, "DeviceGuard");
  previous_ = current_device();
  if (previous_ != target) EMBER_CUDA_CHECK(cudaSetDevice(target));
}

DeviceGuard::~DeviceGuard() {
  // A destructor must not throw; restoring a device that was current cannot fail
  // short of a broken driver, which the next call will report.
  if (previous_ >= 0 && cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
}

#ifndef EMBER_CUDA_ARCHITECTURES
#define EMBER_CUDA_ARCHITECTURES ""
#endif

std::vector<std::string> get_arch_list() {
  if (!is_available()) return {};
  // CMake's CUDA_ARCHITECTURES, comma-separated: "90" (machine code and PTX),
  // "90-real" (machine code), "90-virtual" (PTX).
  std::vector<std::string> archs;
  std::string list = EMBER_CUDA_ARCHITECTURES;
  size_t start = 0;
  while (start < list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string entry = list.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) continue;
    size_t dash = entry.find('-');
    std::string number = entry.substr(0, dash);
    std::string kind = dash == std::string::npos ? "" : entry.substr(dash + 1);
    if (kind.empty() || kind == "real") archs.push_back("sm_" + number);
    if (kind.empty() || kind == "virtual") archs.push_back("compute_" + number);
  }
  return archs;
}

bool can_device_access_peer(int device, int peer) {
  int d = detail::resolve_device(device, "can_device_access_peer");
  int p = detail::resolve_device(peer, "can_device_access_peer");
  int can = 0;
  EMBER_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, d, p));
  return can != 0;
}

int multiprocessor_count() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> counts[kMaxDevices] = {};
  int device = current_device();
  if (device >= kMaxDevices) device = kMaxDevices - 1;  // only a launch-size hint
  int n = counts[device].load(std::memory_order_relaxed);
  if (n == 0) {
    EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, current_device()));
    counts[device].store(n, std::memory_order_relaxed);
  }
  return n;
}

}  // namespace ember::cuda
