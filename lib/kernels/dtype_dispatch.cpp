// The dtype switches' default case (kernels/dtype_dispatch.h).
#include "kernels/dtype_dispatch.h"

namespace ember {

[[noreturn]] void throw_unsupported_dtype(const char* op, DType dtype) {
  // NotImplementedError, as torch's dtype dispatch ("arange_cpu" not implemented for 'Bool').
  throw NotImplementedError(::ember::detail::str(op, ": not implemented for '", scalar_type_name(dtype), "'"));
}

}  // namespace ember
