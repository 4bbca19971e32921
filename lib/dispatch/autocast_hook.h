// The autocast layer's place in the dispatcher. It sits above the tracer and
// autograd layers, so the casts it makes are themselves dispatched ops: autograd
// records them (gradients come back in the parameters' dtype) and the tracer puts
// them in the graph. lib/autocast installs the layer; the dispatcher only tests one
// per-thread flag, so with autocast off on this thread the layer costs one branch.
#pragma once
#include "dispatch/dispatcher.h"

namespace ember {

void set_autocast_layer(LayerFn fn);
// Whether autocast is on for some device type on this thread (lib/autocast keeps it
// in step with its per-device state). Only takes effect after set_autocast_layer.
void set_autocast_active(bool on);
// Whether this thread's calls pass the autocast layer now.
bool autocast_active();
// Suspends (false) or resumes (true) the layer for this thread without changing its
// autocast state: the layer runs what is below it suspended. Returns the previous value.
bool exchange_autocast_active(bool on);
// The layers below autocast (tracer, autograd, backend): where the autocast layer
// hands the call on once it has cast the inputs.
void dispatch_below_autocast(OpCall& call);

}  // namespace ember
