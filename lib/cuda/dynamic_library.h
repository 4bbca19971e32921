// CUDA's libraries beyond the runtime (cuBLAS, cuBLASLt, cuDNN) are opened at run
// time, on first use, rather than linked: libember then loads on machines without
// them (a CPU-only install, a CI machine), and finds them wherever they are (the CUDA
// toolkit's lib64, or the nvidia-* wheels of a Python environment). A missing
// library is a clear error when an op first needs it, naming the places searched.
//
//   // in the wrapper file of the library, for each function used:
//   EMBER_DYNAMIC_FN(cublas_library(), cublasSgemm_v2)(handle, ...);
//
// The function's declaration comes from the library's header (cublas_v2.h), so the
// call is type-checked; only its address is looked up (once, then cached).
#pragma once
#include <string>
#include <vector>

namespace ember::cuda {

class DynamicLibrary {
 public:
  // `what` names it in errors ("cuBLAS"); `names` are the file names to try
  // (libcublas.so.13, ...), each in the standard search path and in `extra_dirs`.
  DynamicLibrary(std::string what, std::vector<std::string> names);
  // The address of `symbol`; throws an ember::Error naming the library and symbol
  // when the library or the symbol cannot be found.
  void* symbol(const char* symbol);
  bool available();  // the library could be opened

 private:
  void* open();
  std::string what_;
  std::vector<std::string> names_;
  void* handle_ = nullptr;
  bool tried_ = false;
  std::string failure_;
};

// Folders searched after the loader's own path: $EMBER_CUDA_LIBRARY_PATH (':'-separated),
// $CUDA_HOME/lib64, /usr/local/cuda/lib64, and the nvidia/*/lib folders of the Python
// environments on sys.path-like locations given by $EMBER_NVIDIA_WHEEL_PATH.
std::vector<std::string> cuda_library_dirs();

}  // namespace ember::cuda

// The function `name` of `library` (a DynamicLibrary&), typed as its declaration.
#define EMBER_DYNAMIC_FN(library, name)                                                   \
  ([]() -> decltype(&name) {                                                               \
    static decltype(&name) fn = reinterpret_cast<decltype(&name)>((library).symbol(#name)); \
    return fn;                                                                             \
  }())
