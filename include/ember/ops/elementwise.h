// Free functions of the elementwise group (ember::...).
#pragma once
#include "ember/tensor.h"

namespace ember {

}  // namespace ember
