// float32 2-d convolutions through oneDNN's primitives (direct, Winograd and
// oneDNN's own gemm-based kernels): forward, backward-data (also the forward of
// conv_transpose2d) and backward-weights, with the primitives cached by shape.
// The CPU conv kernels (conv.cpp, conv_backward.cpp) ask prefer_onednn() and,
// when it says yes, call the runner; a runner returns false when oneDNN is not
// installed or rejects the problem, and the kernel then runs its im2col path.
// See onednn_conv.cpp for the loading, caching and the measured selection rule.
#pragma once
#include <cstdint>
#include <string>

namespace ember::cpu::onednn {

// One convolution in conv2d's terms: x [batch, in_channels, height, width],
// w [out_channels, in_channels / groups, kh, kw], y [batch, out_channels, out_h, out_w].
// Dilation as conv2d takes it (1 = dense); padding the same on both sides.
struct Conv2dShape {
  int64_t batch, in_channels, height, width;
  int64_t out_channels, kh, kw;
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t groups, out_h, out_w;
};

enum class ConvDirection { forward, backward_data, backward_weights };

// Whether this float32 problem should run through oneDNN: the backend forced by
// set_conv_backend or EMBER_CONV_BACKEND=im2col|onednn, else the measured rule.
bool prefer_onednn(const Conv2dShape& s, ConvDirection d);

// y = conv2d(x, w) + bias (bias may be nullptr). All operands contiguous.
bool conv2d_forward(const Conv2dShape& s, const float* x, const float* w, const float* bias, float* y);
// gx = the gradient of conv2d wrt its input, from gy (= conv_transpose2d(gy, w) without bias).
bool conv2d_backward_data(const Conv2dShape& s, const float* gy, const float* w, float* gx);
// gw = the gradient of conv2d wrt its weight, from x and gy.
bool conv2d_backward_weights(const Conv2dShape& s, const float* x, const float* gy, float* gw);

// "auto" (the rule; EMBER_CONV_BACKEND's value at start when set), "im2col" or "onednn".
// Anything else raises ValueError.
void set_conv_backend(const std::string& backend);
std::string conv_backend();
// Whether oneDNN (2.x) was found and its CPU engine created.
bool onednn_available();
// Primitives created so far (cache misses), to test that a loop reuses them.
int64_t primitives_created();

}  // namespace ember::cpu::onednn
