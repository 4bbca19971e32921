// Saving an optimizer's state (torch::save(optimizer, path) in libtorch). The
// file is the one Python's ember.save(optimizer.state_dict(), path) writes: a
// safetensors file whose tensors are the per-parameter state ("state.0.exp_avg",
// ...) and whose metadata holds the rest of the state dict, so each front end
// reads the other's files.
#pragma once
#include <string>

#include "ember/optim/optimizer.h"

namespace ember {

void save(const optim::Optimizer& optimizer, const std::string& path);
// Loads the state into an optimizer over the same parameters (as
// load_state_dict: group sizes must match).
void load(optim::Optimizer& optimizer, const std::string& path);

}  // namespace ember
