// Free functions of the shape_index group (ember::...).
#pragma once
#include "ember/tensor.h"

namespace ember {

}  // namespace ember
