// Flushing denormal floats to zero (torch.set_flush_denormal): on x86 with SSE3, sets
// the FTZ and DAZ bits of MXCSR, so denormal results are written as zero and denormal
// inputs read as zero, which avoids the slow microcode path they take. It is set on the
// calling thread and on every thread of the OpenMP pool that runs ember's kernels
// (PyTorch sets the calling thread only). Returns false, changing nothing, where the
// CPU has no such mode.
#pragma once

namespace ember {

bool set_flush_denormal(bool on);

}  // namespace ember
