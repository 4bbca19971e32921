// Reading the values of a state dict (ember::optim::OptimValues) back into
// options and parameter states: a value of the wrong kind is a TypeError that
// names it, a value left out keeps the current one.
#pragma once
#include "ember/optim/optimizer.h"

namespace ember::optim {

// A number (double, or an int64 / bool as a number) or `current` when absent.
double read_double(const OptimValues& values, const char* name, double current);
bool read_bool(const OptimValues& values, const char* name, bool current);
// A list of numbers, or `current` when absent.
std::vector<double> read_doubles(const OptimValues& values, const char* name,
                                 std::vector<double> current);
// A tensor, or an undefined tensor when absent.
Tensor read_tensor(const OptimValues& values, const char* name);
// "step": a one-element tensor (as PyTorch stores it) or a number; 0 when absent.
int64_t read_step(const OptimValues& values);
// The step count as stored in a state dict: a 0-dim float32 tensor.
Tensor step_tensor(int64_t step);
// Adds name: t when t is defined.
void put_tensor(OptimValues& values, const char* name, const Tensor& t);

// "Invalid <what>: <value>" (ValueError) unless ok, as torch.optim's checks say it.
void check_option(bool ok, const char* what, double value);

}  // namespace ember::optim
