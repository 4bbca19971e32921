// The exceptions of ember::distributed, as torch.distributed names them. All are
// ember::Error (RuntimeError in Python), so a caller that catches RuntimeError
// still catches them; Python sees DistError, DistStoreError, DistNetworkError and
// DistBackendError (csrc/distributed.cpp).
#pragma once
#include "ember/error.h"

namespace ember::distributed {

class DistError : public Error { using Error::Error; };
// A store operation that failed or timed out (a key that never appeared).
class DistStoreError : public DistError { using DistError::DistError; };
// A socket that could not listen, connect, send or receive.
class DistNetworkError : public DistError { using DistError::DistError; };
// A collective that failed inside the backend (a peer that died, a timeout).
class DistBackendError : public DistError { using DistError::DistError; };

}  // namespace ember::distributed
