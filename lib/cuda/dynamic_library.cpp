// Opening CUDA's libraries at run time (dynamic_library.h).
#include "cuda/dynamic_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <sstream>

#include "ember/error.h"

namespace ember::cuda {
namespace {

std::mutex& library_mutex() {
  static std::mutex m;
  return m;
}

void split_into(const char* list, std::vector<std::string>& out) {
  if (!list) return;
  std::stringstream ss(list);
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty()) out.push_back(dir);
}

}  // namespace

std::vector<std::string> cuda_library_dirs() {
  std::vector<std::string> dirs;
  split_into(std::getenv("EMBER_CUDA_LIBRARY_PATH"), dirs);
  if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(std::string(home) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  // pip's nvidia-* wheels: EMBER_NVIDIA_WHEEL_PATH names site-packages folders; the
  // Python package sets it to its own environment's (ember/__init__.py).
  std::vector<std::string> site;
  split_into(std::getenv("EMBER_NVIDIA_WHEEL_PATH"), site);
  for (const std::string& s : site)
    for (const char* sub : {"cublas", "cudnn", "cu13", "cuda_runtime"}) dirs.push_back(s + "/nvidia/" + sub + "/lib");
  return dirs;
}

DynamicLibrary::DynamicLibrary(std::string what, std::vector<std::string> names)
    : what_(std::move(what)), names_(std::move(names)) {}

void* DynamicLibrary::open() {
  std::lock_guard<std::mutex> lock(library_mutex());
  if (tried_) return handle_;
  tried_ = true;
  std::vector<std::string> tried;
  for (const std::string& name : names_) {
    // The loader's own search path first (LD_LIBRARY_PATH, rpath, ld.so.cache).
    if ((handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) return handle_;
    tried.push_back(name);
    for (const std::string& dir : cuda_library_dirs()) {
      std::string path = dir + "/" + name;
      if ((handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) return handle_;
      tried.push_back(path);
    }
  }
  std::ostringstream msg;
  msg << what_ << " could not be loaded; tried:";
  for (const std::string& t : tried) msg << " " << t;
  msg << ". Install it (the CUDA toolkit, or the nvidia-* Python wheels) or name its "
         "folder in EMBER_CUDA_LIBRARY_PATH.";
  failure_ = msg.str();
  return nullptr;
}

bool DynamicLibrary::available() { return open() != nullptr; }

void* DynamicLibrary::symbol(const char* symbol) {
  void* handle = open();
  EMBER_CHECK(handle, failure_);
  void* fn = dlsym(handle, symbol);
  EMBER_CHECK(fn, what_, ": the loaded library has no function ", symbol,
              " (a version older than ember needs?)");
  return fn;
}

}  // namespace ember::cuda
