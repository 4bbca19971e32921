// oneDNN's C API, opened at run time: one dlopen, one CPU engine and a stream per
// thread, shared by the convolutions (onednn_conv.cpp) and the bfloat16 products
// (onednn_matmul.cpp). As blas.cpp opens oneDNN for sgemm (Note [BLAS loading] in
// blas.h), ember builds and runs without it: api().ok is then false and the callers
// take their own paths. Only the 2.x C API is used (its header gives the types; the
// functions are looked up by name), and a library of another major version is not.
#pragma once

#if __has_include(<oneapi/dnnl/dnnl.h>)
#include <oneapi/dnnl/dnnl.h>
#define EMBER_HAVE_DNNL_HEADERS 1
#else
#define EMBER_HAVE_DNNL_HEADERS 0
#endif

#if EMBER_HAVE_DNNL_HEADERS && defined(DNNL_VERSION_MAJOR) && DNNL_VERSION_MAJOR == 2
#define EMBER_DNNL_USABLE 1

namespace ember::cpu::onednn {

#define EMBER_DNNL_FUNCTIONS(X) \
  X(dnnl_version) X(dnnl_engine_create) X(dnnl_stream_create) X(dnnl_stream_destroy)              \
  X(dnnl_stream_wait) X(dnnl_memory_desc_init_by_tag) X(dnnl_memory_desc_equal)                   \
  X(dnnl_memory_desc_get_size) X(dnnl_memory_create) X(dnnl_memory_destroy)                       \
  X(dnnl_memory_desc_init_by_strides) X(dnnl_dilated_convolution_forward_desc_init)               \
  X(dnnl_dilated_convolution_backward_data_desc_init)                                             \
  X(dnnl_dilated_convolution_backward_weights_desc_init) X(dnnl_primitive_attr_create)            \
  X(dnnl_primitive_attr_destroy) X(dnnl_primitive_attr_set_scratchpad_mode)                       \
  X(dnnl_primitive_desc_create) X(dnnl_primitive_desc_destroy) X(dnnl_primitive_desc_query_md)    \
  X(dnnl_reorder_primitive_desc_create) X(dnnl_primitive_create) X(dnnl_primitive_destroy)        \
  X(dnnl_primitive_execute) X(dnnl_matmul_desc_init) X(dnnl_primitive_attr_set_output_scales)     \
  X(dnnl_primitive_attr_set_post_ops) X(dnnl_post_ops_create) X(dnnl_post_ops_destroy)            \
  X(dnnl_post_ops_append_sum) X(dnnl_primitive_desc_query)

struct Api {
#define EMBER_DNNL_POINTER(name) decltype(&::name) name = nullptr;
  EMBER_DNNL_FUNCTIONS(EMBER_DNNL_POINTER)
#undef EMBER_DNNL_POINTER
  dnnl_engine_t engine = nullptr;
  bool ok = false;  // every function found, version 2, engine made
};

// Loaded on first use.
const Api& api();
// A CPU stream per thread (a stream is not meant to be shared between threads);
// nullptr if it cannot be made.
dnnl_stream_t thread_stream();

}  // namespace ember::cpu::onednn

#else
#define EMBER_DNNL_USABLE 0
#endif
