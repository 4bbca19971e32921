// The tracer layer (DESIGN.md, Tracer): while a trace is active on a thread,
// every op that passes the dispatcher runs as usual and also becomes a node of
// a graph. Tensors are identified by their TensorImpl: the trace's inputs and
// the named parameters map to their values up front; an op's outputs map to its
// new values; any other tensor an op reads becomes a constant (a snapshot of its
// value when first read).
//
// Use begin_trace / end_trace around the traced code (one trace per thread at a
// time); abort_trace when the code throws. ember::jit::trace (include/ember/jit.h)
// and Python's ember.jit.trace are built on these.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ember/jit.h"
#include "jit/graph.h"

namespace ember::jit {

void begin_trace(const std::vector<Tensor>& inputs, const NamedTensorList& params);
// Ends the trace with forward's (flattened) outputs; output_structure as in Graph.
std::shared_ptr<Graph> end_trace(const std::vector<Tensor>& outputs,
                                 const std::string& output_structure = "");
void abort_trace();
bool is_tracing();

// What the tracer does when a traced value is read back to the host. The default
// prints the warning to stderr; Python installs one that issues a TracerWarning
// at the user's source line.
using TracerWarningFn = void (*)(const std::string& message);
void set_tracer_warning_handler(TracerWarningFn fn);

}  // namespace ember::jit
