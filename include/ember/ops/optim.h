// The fused optimizer updates: one dispatched op per optimizer that updates one
// parameter and its state tensors in place, in a single pass over the memory.
// They compute what torch.optim computes with foreach=False (the same order of
// operations, scalars rounded to the parameter's dtype as PyTorch's kernels
// do), for float32 and float64 parameters. The optimizer classes (C++:
// ember/optim.h, Python: ember.optim) call them once per parameter; they run
// the ops with grad mode off (an in-place write into a leaf that requires
// grad is otherwise an error, as in PyTorch).
//
// Every state tensor has the parameter's shape, dtype and device; an optional
// one is an undefined Tensor when left out. The gradient may have any strides.
#pragma once
#include "ember/tensor.h"

namespace ember {

// SGD. momentum_buffer is needed when momentum != 0; init_buffer (the first
// step) sets it to the gradient instead of decaying it.
void sgd_step_(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, double lr,
               double momentum, double dampening, double weight_decay, bool nesterov,
               bool maximize, bool init_buffer);

// Adam, and AdamW with decoupled_weight_decay. `step` counts this step too (1
// on the first). max_exp_avg_sq is given for amsgrad only.
void adam_step_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, double lr, double beta1,
                double beta2, double eps, double weight_decay, double step, bool maximize,
                bool decoupled_weight_decay);

// RMSprop. momentum_buffer is needed when momentum > 0, grad_avg when centered.
void rmsprop_step_(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                   const Tensor& momentum_buffer, const Tensor& grad_avg, double lr, double alpha,
                   double eps, double weight_decay, double momentum, bool maximize);

// Adagrad. `step` counts this step too (1 on the first).
void adagrad_step_(const Tensor& param, const Tensor& grad, const Tensor& sum, double lr,
                   double lr_decay, double weight_decay, double eps, double step, bool maximize);

}  // namespace ember
