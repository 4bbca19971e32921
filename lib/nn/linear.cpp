#include "ember/nn/modules/linear.h"

#include <cmath>

#include "ember/nn/init.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"

namespace ember::nn {

LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) {
  EMBER_CHECK_VALUE(options.in_features() >= 0 && options.out_features() >= 0,
                    "Linear: in_features and out_features must be >= 0, got ", options.in_features(),
                    " and ", options.out_features());
  weight = register_parameter("weight", empty({options.out_features(), options.in_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(),
                            options.bias());
  reset_parameters();
}

// kaiming_uniform_(a=sqrt(5)) is uniform in +-1/sqrt(fan_in), as is the bias.
void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    double bound = options.in_features() > 0 ? 1 / std::sqrt(static_cast<double>(options.in_features())) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << "Linear(in_features=" << options.in_features() << ", out_features=" << options.out_features()
         << ", bias=" << std::boolalpha << options.bias() << ")";
}

Tensor LinearImpl::forward(const Tensor& input) { return linear(input, weight, bias); }

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) {
  weight = register_parameter(
      "weight", empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(),
                            options.bias());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  double bound = 1 / std::sqrt(static_cast<double>(weight.size(1)));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

void BilinearImpl::pretty_print(std::ostream& stream) const {
  stream << "Bilinear(in1_features=" << options.in1_features() << ", in2_features=" << options.in2_features()
         << ", out_features=" << options.out_features() << ", bias=" << std::boolalpha << options.bias() << ")";
}

// Composed from matmul: (x1 @ W[o]) * x2 summed over in2, for each o at once.
Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  EMBER_CHECK(input1.dim() >= 1 && input1.size(-1) == options.in1_features(),
              "Bilinear: input1 must have ", options.in1_features(), " features in its last dim, got ",
              describe(input1));
  EMBER_CHECK(input2.dim() >= 1 && input2.size(-1) == options.in2_features(),
              "Bilinear: input2 must have ", options.in2_features(), " features in its last dim, got ",
              describe(input2));
  EMBER_CHECK(input1.sizes().size() == input2.sizes().size() &&
                  std::equal(input1.sizes().begin(), input1.sizes().end() - 1, input2.sizes().begin()),
              "Bilinear: input1 and input2 must have the same batch dims, got ", shape_str(input1.sizes()),
              " and ", shape_str(input2.sizes()));
  Tensor x1 = input1.reshape({-1, options.in1_features()});
  Tensor x2 = input2.reshape({-1, options.in2_features()});
  Tensor left = matmul(x1.unsqueeze(0), weight);            // [out, B, in2]
  Tensor out = sum(left * x2.unsqueeze(0), -1).t();         // [B, out]
  if (bias.defined()) out = out + bias;
  IntList shape(input1.sizes().begin(), input1.sizes().end());
  shape.back() = options.out_features();
  return out.reshape(shape);
}

void IdentityImpl::pretty_print(std::ostream& stream) const { stream << "Identity()"; }

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "Flatten(start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim() << ")";
}

}  // namespace ember::nn
