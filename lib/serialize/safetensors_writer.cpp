// Writing safetensors files (safetensors.h).
#include <algorithm>
#include <numeric>

#include "serialize/atomic_file.h"
#include "serialize/safetensors.h"

namespace ember::serialize {

void write_safetensors(const NamedTensors& tensors, const Metadata& metadata,
                       const ByteSink& sink) {
  std::vector<Tensor> data;  // what is written: contiguous CPU copies where needed
  std::vector<TensorEntry> entries;
  for (const auto& [name, t] : tensors) {
    EMBER_CHECK_VALUE(t.defined(), "save: tensor '", name, "' is undefined");
    data.push_back(t.detach().cpu().contiguous());
    entries.push_back({name, t.dtype(), t.sizes(), 0, 0});
  }
  // The data section holds the widest elements first, so that (the header being
  // padded to 8 bytes) every tensor starts aligned to its element size.
  std::vector<size_t> layout(entries.size());
  std::iota(layout.begin(), layout.end(), size_t{0});
  std::stable_sort(layout.begin(), layout.end(), [&](size_t a, size_t b) {
    return itemsize(entries[a].dtype) > itemsize(entries[b].dtype);
  });
  uint64_t offset = 0;
  for (size_t i : layout) {
    entries[i].begin = offset;
    offset += static_cast<uint64_t>(data[i].nbytes());
    entries[i].end = offset;
  }
  std::string header = format_header(entries, metadata);
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(header.size() >> (8 * i));
  sink(length, sizeof length);
  sink(header.data(), header.size());
  for (size_t i : layout)
    if (data[i].nbytes() > 0) sink(data[i].data_ptr(), static_cast<size_t>(data[i].nbytes()));
}

void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const Metadata& metadata) {
  write_file_atomically(path, [&](AtomicFileWriter& file) {
    write_safetensors(tensors, metadata, [&](const void* p, size_t n) { file.write(p, n); });
  });
}

}  // namespace ember::serialize
