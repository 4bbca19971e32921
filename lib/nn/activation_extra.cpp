#include "ember/nn/modules/activation_extra.h"

#include "ember/nn/init.h"
#include "ember/ops/activation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"

namespace ember::nn {

namespace {
const char* inplace_suffix(bool inplace) { return inplace ? ", inplace=true" : ""; }
}  // namespace

void ELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ELU(alpha=" << options.alpha() << inplace_suffix(options.inplace()) << ")";
}
Tensor ELUImpl::forward(Tensor input) {
  return options.inplace() ? elu_(input, options.alpha()) : elu(input, options.alpha());
}

void CELUImpl::pretty_print(std::ostream& stream) const {
  stream << "CELU(alpha=" << options.alpha() << inplace_suffix(options.inplace()) << ")";
}
Tensor CELUImpl::forward(Tensor input) {
  return options.inplace() ? celu_(input, options.alpha()) : celu(input, options.alpha());
}

void SELUImpl::pretty_print(std::ostream& stream) const {
  stream << "SELU(" << (options.inplace() ? "inplace=true" : "") << ")";
}
Tensor SELUImpl::forward(Tensor input) { return options.inplace() ? selu_(input) : selu(input); }

void ReLU6Impl::pretty_print(std::ostream& stream) const {
  stream << "ReLU6(" << (options.inplace() ? "inplace=true" : "") << ")";
}
Tensor ReLU6Impl::forward(Tensor input) { return options.inplace() ? relu6_(input) : relu6(input); }

void HardtanhImpl::pretty_print(std::ostream& stream) const {
  stream << "Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val()
         << inplace_suffix(options.inplace()) << ")";
}
Tensor HardtanhImpl::forward(Tensor input) {
  return options.inplace() ? hardtanh_(input, options.min_val(), options.max_val())
                           : hardtanh(input, options.min_val(), options.max_val());
}

// The modules without options.
#define EMBER_PLAIN_ACTIVATION(Name, fn)                                                   \
  void Name##Impl::pretty_print(std::ostream& stream) const { stream << #Name "()"; }     \
  Tensor Name##Impl::forward(Tensor input) { return fn(input); }
EMBER_PLAIN_ACTIVATION(Hardsigmoid, hardsigmoid)
EMBER_PLAIN_ACTIVATION(Hardswish, hardswish)
EMBER_PLAIN_ACTIVATION(Mish, mish)
EMBER_PLAIN_ACTIVATION(LogSigmoid, logsigmoid)
EMBER_PLAIN_ACTIVATION(Softsign, softsign)
EMBER_PLAIN_ACTIVATION(Tanhshrink, tanhshrink)
#undef EMBER_PLAIN_ACTIVATION

void Softmax2dImpl::pretty_print(std::ostream& stream) const { stream << "Softmax2d()"; }
Tensor Softmax2dImpl::forward(Tensor input) {
  EMBER_CHECK_VALUE(input.dim() == 3 || input.dim() == 4, "Softmax2d: expected input to be 3D or 4D, got ",
                    input.dim(), "D instead");
  return softmax(input, -3);
}

void SoftshrinkImpl::pretty_print(std::ostream& stream) const { stream << "Softshrink(" << options.lambd() << ")"; }
Tensor SoftshrinkImpl::forward(Tensor input) { return softshrink(input, options.lambd()); }
void HardshrinkImpl::pretty_print(std::ostream& stream) const { stream << "Hardshrink(" << options.lambd() << ")"; }
Tensor HardshrinkImpl::forward(Tensor input) { return hardshrink(input, options.lambd()); }

void ThresholdImpl::pretty_print(std::ostream& stream) const {
  stream << "Threshold(threshold=" << options.threshold() << ", value=" << options.value()
         << inplace_suffix(options.inplace()) << ")";
}
Tensor ThresholdImpl::forward(Tensor input) {
  return options.inplace() ? threshold_(input, options.threshold(), options.value())
                           : threshold(input, options.threshold(), options.value());
}

void GLUImpl::pretty_print(std::ostream& stream) const { stream << "GLU(dim=" << options.dim() << ")"; }
Tensor GLUImpl::forward(Tensor input) { return glu(input, options.dim()); }

void SoftminImpl::pretty_print(std::ostream& stream) const { stream << "Softmin(dim=" << options.dim() << ")"; }
Tensor SoftminImpl::forward(Tensor input) { return softmin(input, options.dim()); }

void SoftplusImpl::pretty_print(std::ostream& stream) const {
  stream << "Softplus(beta=" << options.beta() << ", threshold=" << options.threshold() << ")";
}
Tensor SoftplusImpl::forward(Tensor input) { return softplus(input, options.beta(), options.threshold()); }

void RReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "RReLU(lower=" << options.lower() << ", upper=" << options.upper()
         << inplace_suffix(options.inplace()) << ")";
}
Tensor RReLUImpl::forward(Tensor input) {
  return options.inplace() ? rrelu_(input, options.lower(), options.upper(), is_training())
                           : rrelu(input, options.lower(), options.upper(), is_training());
}

PReLUImpl::PReLUImpl(const PReLUOptions& options_) : options(options_) {
  weight = register_parameter("weight", empty({options.num_parameters()}));
  reset_parameters();
}
void PReLUImpl::reset_parameters() { init::constant_(weight, options.init()); }
void PReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "PReLU(num_parameters=" << options.num_parameters() << ")";
}
Tensor PReLUImpl::forward(const Tensor& input) { return prelu(input, weight); }

}  // namespace ember::nn
