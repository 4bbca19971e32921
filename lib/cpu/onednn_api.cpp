#include "cpu/onednn_api.h"

#if EMBER_DNNL_USABLE
#include <dlfcn.h>

#include <initializer_list>

namespace ember::cpu::onednn {

namespace {

Api load_api() {
  Api a;
  void* h = nullptr;
  for (const char* name : {"libdnnl.so.2", "libdnnl.so"})
    if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!h) return a;
  bool all = true;
#define EMBER_DNNL_LOOKUP(name)                                 \
  a.name = reinterpret_cast<decltype(a.name)>(dlsym(h, #name)); \
  all = all && a.name != nullptr;
  EMBER_DNNL_FUNCTIONS(EMBER_DNNL_LOOKUP)
#undef EMBER_DNNL_LOOKUP
  if (!all || a.dnnl_version()->major != 2) return a;
  if (a.dnnl_engine_create(&a.engine, dnnl_cpu, 0) != dnnl_success) return a;
  a.ok = true;
  return a;
}

}  // namespace

const Api& api() {
  static const Api a = load_api();
  return a;
}

dnnl_stream_t thread_stream() {
  struct Holder {
    dnnl_stream_t s = nullptr;
    ~Holder() {
      if (s) api().dnnl_stream_destroy(s);
    }
  };
  thread_local Holder h;
  if (!h.s && api().dnnl_stream_create(&h.s, api().engine, dnnl_stream_default_flags) != dnnl_success)
    h.s = nullptr;
  return h.s;
}

}  // namespace ember::cpu::onednn

#endif
