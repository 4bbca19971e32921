// Free functions of the linalg group (ember::...).
#pragma once
#include "ember/tensor.h"

namespace ember {

}  // namespace ember
