// dropout, embedding, one_hot: argument checks, then one dispatched op each
// (kernels: lib/cpu/dropout.cpp, lib/cpu/embedding.cpp).
#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "ember/ops/factories.h"
#include "ember/ops/nn.h"
#include "ops/nn_checks.h"

namespace ember {

using namespace nn_checks;

namespace {

void check_dropout_p(double p) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, "dropout: dropout probability has to be between 0 and 1, "
                    "but got ", p);
}

void check_dropout_input(const Tensor& input) {
  check_defined(input, "dropout", "input");
  EMBER_CHECK(input.is_floating_point(), "dropout: expected a floating point input, got ",
              describe(input));
}

}  // namespace

std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, bool train) {
  check_dropout_p(p);
  check_dropout_input(input);
  if (!train) return {input, ones(IntList(input.sizes().begin(), input.sizes().end()), kBool)};
  OpCall call(opid::dropout, {input}, DropoutArgs{.p = p}.attrs());
  dispatch(call);
  return {call.outputs[0], call.outputs[1]};
}

Tensor dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_dropout_p(p);
  check_defined(input, "dropout", "input");
  if (!training || p == 0.0) return input;  // the very tensor, as PyTorch
  check_dropout_input(input);
  OpCall call(opid::dropout, {input}, DropoutArgs{.p = p}.attrs());
  if (inplace) call.outputs.push_back(input);
  dispatch(call);
  return call.outputs[0];
}

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 bool scale_grad_by_freq) {
  const char* op = "embedding";
  check_defined(input, op, "input");
  check_defined(weight, op, "weight");
  EMBER_CHECK(weight.dim() == 2, op, ": 'weight' must be 2-D, got ", describe(weight));
  EMBER_CHECK(input.dtype() == kInt64 || input.dtype() == kInt32, op, ": expected indices of dtype "
              "int64 or int32, got ", describe(input));
  const int64_t rows = weight.size(0);
  if (padding_idx) {
    EMBER_CHECK_VALUE(*padding_idx < rows && *padding_idx >= -rows, op, ": padding_idx ",
                      *padding_idx, " must be within num_embeddings (", rows, ")");
    if (*padding_idx < 0) *padding_idx += rows;
  }
  OpCall call(opid::embedding, {weight, input},
              EmbeddingArgs{.padding_idx = padding_idx, .scale_grad_by_freq = scale_grad_by_freq}.attrs());
  return dispatch_one(call);
}

Tensor one_hot(const Tensor& input, int64_t num_classes) {
  const char* op = "one_hot";
  check_defined(input, op, "input");
  EMBER_CHECK(input.dtype() == kInt64, op, ": one_hot is only applicable to index tensor of type "
              "int64 (LongTensor), got ", describe(input));
  EMBER_CHECK(num_classes >= -1, op, ": num_classes must be -1 (inferred) or non-negative, got ",
              num_classes);
  OpCall call(opid::one_hot, {input}, OneHotArgs{.num_classes = num_classes}.attrs());
  return dispatch_one(call);
}

}  // namespace ember
