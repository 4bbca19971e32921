// Note [Backward streams]: on CUDA, a node's backward runs on the stream its forward
// op ran on (Node::forward_stream, recorded by the autograd layer), as in PyTorch.
// Where a gradient crosses streams (produced on one, consumed on another) the
// consumer's stream first waits for the producer's (an event, never the host), and
// when backward() returns, the caller's current streams wait for every stream the
// pass used, so reading .grad afterwards on the current stream is safe.
// CPU nodes have no stream; for them all of this costs one branch per node.
#pragma once
#include <vector>

#include "ember/autograd.h"

namespace ember::autograd {

using StreamRef = Node::StreamRef;

// The current stream of CUDA device `device`.
StreamRef current_stream_ref(int device);
// The stream a gradient tensor was made on when no node says: the current one of
// its device (none for a CPU tensor).
StreamRef ambient_stream_of(const Tensor& grad);

// Makes `target` wait for each of `producers` that differs from it.
void wait_for_streams(const StreamRef& target, const std::vector<StreamRef>& producers);

// Makes the current stream of each used stream's device wait for it (end of backward).
void join_current_streams(const std::vector<StreamRef>& used);

// While alive, `stream` (if defined) is the current stream of its device.
class NodeStreamGuard {
 public:
  explicit NodeStreamGuard(const StreamRef& stream);
  ~NodeStreamGuard();
  NodeStreamGuard(const NodeStreamGuard&) = delete;
  NodeStreamGuard& operator=(const NodeStreamGuard&) = delete;

 private:
  StreamRef previous_;
};

}  // namespace ember::autograd
