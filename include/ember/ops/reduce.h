// Free functions of the reduce group (ember::...).
#pragma once
#include "ember/tensor.h"

namespace ember {

}  // namespace ember
