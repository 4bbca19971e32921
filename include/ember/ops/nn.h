// Free functions of the nn group (ember::...).
#pragma once
#include "ember/tensor.h"

namespace ember {

}  // namespace ember
