// Saving and loading tensors (torch::save / torch::load, Python's ember.save /
// ember.load). Files are in the safetensors format, so other tools (the
// safetensors package, PyTorch, ...) read what ember writes and ember reads
// theirs. Loading is safe on files from anywhere: no code runs, and a malformed
// file raises ember::Error. Saving is atomic: a file is written under a temporary
// name and renamed over `path` when complete, so `path` never holds half a file.
#pragma once
#include <map>
#include <string>

#include "ember/tensor.h"

namespace ember {

// Writes the tensors by name. Any layout or device: they are saved as contiguous
// CPU copies, without autograd history. `metadata` goes to the file's
// "__metadata__" (the key "ember" is reserved for ember.save's own use).
void save(const std::map<std::string, Tensor>& tensors, const std::string& path,
          const std::map<std::string, std::string>& metadata = {});
// One tensor, under the name "tensor"; Python's ember.load returns it as a tensor.
void save(const Tensor& tensor, const std::string& path);

// Every tensor of a safetensors file, by name. Each owns its memory (CPU).
std::map<std::string, Tensor> load(const std::string& path);
// The tensor of a file that holds exactly one (as save(tensor, path) writes).
void load(Tensor& tensor, const std::string& path);
// The file's "__metadata__" (empty when it has none).
std::map<std::string, std::string> load_metadata(const std::string& path);

}  // namespace ember
