// Note [Backward streams] (backward_streams.h).
#include "autograd/backward_streams.h"

#include "ember/cuda.h"

namespace ember::autograd {
namespace {
cuda::Stream as_stream(const StreamRef& s) { return cuda::Stream::wrap(s.device, s.handle); }
}  // namespace

StreamRef current_stream_ref(int device) {
  cuda::Stream s = cuda::current_stream(device);
  return StreamRef{s.device(), s.handle()};
}

StreamRef ambient_stream_of(const Tensor& grad) {
  if (!grad.defined() || !grad.device().is_cuda()) return StreamRef{};
  return current_stream_ref(grad.device().index);
}

void wait_for_streams(const StreamRef& target, const std::vector<StreamRef>& producers) {
  if (!target.defined()) return;
  for (const StreamRef& p : producers)
    if (p.defined() && p.device == target.device && !(p == target)) as_stream(target).wait_stream(as_stream(p));
}

void join_current_streams(const std::vector<StreamRef>& used) {
  for (const StreamRef& u : used) {
    if (!u.defined()) continue;
    StreamRef current = current_stream_ref(u.device);
    if (!(current == u)) as_stream(current).wait_stream(as_stream(u));
  }
}

NodeStreamGuard::NodeStreamGuard(const StreamRef& stream) {
  if (!stream.defined()) return;
  previous_ = current_stream_ref(stream.device);
  if (previous_ == stream) {
    previous_ = StreamRef{};
    return;
  }
  cuda::set_current_stream(as_stream(stream));
}

NodeStreamGuard::~NodeStreamGuard() {
  if (previous_.defined()) cuda::set_current_stream(as_stream(previous_));
}

}  // namespace ember::autograd
