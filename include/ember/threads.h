// How many threads ember's CPU kernels use (torch.set_num_threads/get_num_threads).
// The setting is per calling thread, as OpenMP's is: a DataLoader worker sets 1.
#pragma once

namespace ember {

void set_num_threads(int num_threads);  // num_threads >= 1
int get_num_threads();

}  // namespace ember
