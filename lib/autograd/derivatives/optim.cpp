// The fused optimizer updates (lib/dispatch/ops/optim.def) are not
// differentiable: they write a parameter in place, with grad mode off.
#include "autograd/derivatives.h"

namespace ember::autograd {
namespace {

EMBER_NON_DIFFERENTIABLE(sgd_step);
EMBER_NON_DIFFERENTIABLE(adam_step);
EMBER_NON_DIFFERENTIABLE(rmsprop_step);
EMBER_NON_DIFFERENTIABLE(adagrad_step);

}  // namespace
}  // namespace ember::autograd
