// im2col and col2im: the bridge between 2-d convolutions and matrix products.
//
// For one image of C channels (contiguous planes H x W) and a convolution
// geometry, im2col writes the matrix col[C * kh * kw, L] whose column for output
// position (oh, ow) holds the input values under the kernel there (0 where the
// kernel hangs over the padding). Then conv2d is weight[C_out, C*kh*kw] @ col.
// col2im is its adjoint: it adds each col entry back onto the input position it
// came from; conv_transpose2d (and the input gradient of conv2d) is
// col = weight^T @ x followed by col2im.
//
// Both work on a band of output rows [oh0, oh1) (L = (oh1 - oh0) * OW), so that
// callers can bound the column buffer for large images, and take the row
// stride ld >= L of col, so that several images can sit side by side in one
// column matrix (one wider product for small images).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/parallel.h"

namespace ember::cpu {

struct ConvGeometry {
  int64_t channels, height, width;    // the image side (input of conv2d)
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t out_h, out_w;               // the column side (output positions of conv2d)

  int64_t col_rows() const { return channels * kh * kw; }
  // The ow range [lo, hi) whose input column ow * sw - pw + j * dw lies inside [0, width).
  void valid_cols(int64_t j, int64_t& lo, int64_t& hi) const {
    int64_t off = j * dw - pw;  // iw = ow * sw + off
    if (sw == 1) {  // no divisions (they cost as much as a short row's copy)
      lo = std::clamp<int64_t>(-off, 0, out_w);
      hi = std::clamp<int64_t>(width - off, lo, out_w);
      return;
    }
    lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
    hi = width - off <= 0 ? 0 : std::min(out_w, (width - off - 1) / sw + 1);
    lo = std::min(lo, hi);
  }
};

// One row of im2col when strides are 1 and the output is as wide as the input
// (the common "same" convolution): kernel offset (i, j) then shifts the whole
// plane by a constant, so the row is one contiguous copy plus zeroed borders,
// instead of one short copy per output row.
template <typename T>
void im2col_shifted_row(const T* plane, const ConvGeometry& g, int64_t i, int64_t j,
                        int64_t oh0, int64_t oh1, int64_t lo, int64_t hi, T* dst) {
  const int64_t W = g.width;
  const int64_t row_off = i * g.dh - g.ph;  // ih = oh + row_off
  const int64_t a = std::clamp(-row_off, oh0, oh1);             // first oh with ih >= 0
  const int64_t b = std::clamp(g.height - row_off, a, oh1);     // end of oh with ih < H
  if (a > oh0) std::fill(dst, dst + (a - oh0) * W, T(0));  // (most rows: no call)
  if (b < oh1) std::fill(dst + (b - oh0) * W, dst + (oh1 - oh0) * W, T(0));
  T* d = dst + (a - oh0) * W;
  if (a >= b || lo >= hi) {
    std::fill(d, d + (b - a) * W, T(0));
    return;
  }
  // From (a, lo) to (b - 1, hi): input element (a + row_off, lo + off) onwards.
  const T* src = plane + (a + row_off) * W + lo + (j * g.dw - g.pw);
  std::memcpy(d + lo, src, ((b - a - 1) * W + hi - lo) * sizeof(T));
  if (lo == 0 && hi == W) return;
  // The columns that hang over the padding: a few stores a row. Through a zero
  // the compiler cannot see, they stay stores (a literal 0 becomes a memset
  // call per row, which costs more than the row's copy).
  volatile T opaque_zero = T(0);
  const T zero = opaque_zero;
  for (int64_t oh = a; oh < b; ++oh, d += W) {
    for (int64_t ow = 0; ow < lo; ++ow) d[ow] = zero;
    for (int64_t ow = hi; ow < W; ++ow) d[ow] = zero;
  }
}

// (c, i, j) of the next column row r + 1 = (c * kh + i) * kw + j + 1.
inline void next_offset(const ConvGeometry& g, int64_t& c, int64_t& i, int64_t& j) {
  if (++j < g.kw) return;
  j = 0;
  if (++i < g.kh) return;
  i = 0;
  ++c;
}

// Planes this small (with their padding) are copied once per channel into a zeroed
// padded copy on the stack, and every column row is then plain copies from it: on
// maps of a few positions a side (the digits CNN's 4x4 at batch 1) the per-row
// set-up of im2col_shifted_row (clamps, fills, a memcpy call for 16 values) costs
// more than the copy itself. Same values, same zeros.
inline constexpr int64_t kSmallPaddedPlane = 1024;

inline bool small_same_conv(const ConvGeometry& g) {
  return g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.out_w == g.width &&
         g.out_h == g.height && 2 * g.ph + 1 == g.kh && 2 * g.pw + 1 == g.kw &&
         (g.height + 2 * g.ph) * (g.width + 2 * g.pw) <= kSmallPaddedPlane;
}

// Rows [r0, r1) of im2col in the small_same_conv case. kWidth > 0 is the map's
// width known at compile time: GCC turns a copy loop of unknown length into a memcpy
// call, which for 4 values costs more than the copy (kWidth 0: any width).
template <int kWidth, typename T>
void im2col_small_padded(const T* im, const ConvGeometry& g, int64_t oh0, int64_t oh1, T* col,
                         int64_t ld, int64_t r0, int64_t r1) {
  T padded[kSmallPaddedPlane];
  const int64_t W = kWidth > 0 ? kWidth : g.width;  // == out_w
  const int64_t PW = W + 2 * g.pw, PH = g.height + 2 * g.ph;
  std::fill(padded, padded + PH * PW, T(0));  // the border stays zero: channels only fill the inside
  int64_t j = r0 % g.kw, i = (r0 / g.kw) % g.kh, c = r0 / (g.kw * g.kh), filled = -1;
  for (int64_t r = r0; r < r1; ++r, next_offset(g, c, i, j)) {
    if (c != filled) {
      const T* plane = im + c * g.height * W;
      for (int64_t ih = 0; ih < g.height; ++ih)
        for (int64_t iw = 0; iw < W; ++iw) padded[(ih + g.ph) * PW + iw + g.pw] = plane[ih * W + iw];
      filled = c;
    }
    T* dst = col + r * ld;
    for (int64_t oh = oh0; oh < oh1; ++oh, dst += W) {
      const T* src = padded + (oh + i) * PW + j;
      for (int64_t ow = 0; ow < W; ++ow) dst[ow] = src[ow];
    }
  }
}

template <typename T>
void im2col_small_padded_any(const T* im, const ConvGeometry& g, int64_t oh0, int64_t oh1, T* col,
                             int64_t ld, int64_t r0, int64_t r1) {
  switch (g.width) {
    case 2: return im2col_small_padded<2>(im, g, oh0, oh1, col, ld, r0, r1);
    case 4: return im2col_small_padded<4>(im, g, oh0, oh1, col, ld, r0, r1);
    case 8: return im2col_small_padded<8>(im, g, oh0, oh1, col, ld, r0, r1);
    default: return im2col_small_padded<0>(im, g, oh0, oh1, col, ld, r0, r1);
  }
}

// col[r * ld + (oh - oh0) * OW + ow] for r = (c * kh + i) * kw + j.
template <typename T>
void im2col(const T* im, const ConvGeometry& g, int64_t oh0, int64_t oh1, T* col, int64_t ld) {
  const int64_t len = (oh1 - oh0) * g.out_w, plane = g.height * g.width;
  const bool small = small_same_conv(g);
  parallel_for(0, g.col_rows(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, len)),
               [&](int64_t r0, int64_t r1) {
    if (small) return im2col_small_padded_any(im, g, oh0, oh1, col, ld, r0, r1);
    int64_t j = r0 % g.kw, i = (r0 / g.kw) % g.kh, c = r0 / (g.kw * g.kh);
    for (int64_t r = r0; r < r1; ++r, next_offset(g, c, i, j)) {
      int64_t lo, hi;
      g.valid_cols(j, lo, hi);
      T* dst = col + r * ld;
      if (g.sh == 1 && g.sw == 1 && g.out_w == g.width) {
        im2col_shifted_row(im + c * plane, g, i, j, oh0, oh1, lo, hi, dst);
        continue;
      }
      for (int64_t oh = oh0; oh < oh1; ++oh, dst += g.out_w) {
        int64_t ih = oh * g.sh - g.ph + i * g.dh;
        if (ih < 0 || ih >= g.height) {
          std::fill(dst, dst + g.out_w, T(0));
          continue;
        }
        const T* row = im + c * plane + ih * g.width;  // input column iw = ow * sw + off
        int64_t off = j * g.dw - g.pw;
        std::fill(dst, dst + lo, T(0));
        if (g.sw == 1) std::memcpy(dst + lo, row + lo + off, (hi - lo) * sizeof(T));
        else
          for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = row[ow * g.sw + off];
        std::fill(dst + hi, dst + g.out_w, T(0));
      }
    }
  });
}

// col2im of one column row in the shifted case of im2col_shifted_row: the
// row's block from (a, lo) to (b - 1, hi) adds onto one contiguous run of the
// plane when no column hangs over the padding (lo = 0, hi = W), else row by
// row (zeroing those columns to add one run instead costs more: compilers
// turn the few stores into memset calls).
template <typename T>
void col2im_shifted_row(const T* src, const ConvGeometry& g, int64_t i, int64_t j, int64_t oh0,
                        int64_t oh1, int64_t lo, int64_t hi, T* plane) {
  const int64_t W = g.width;
  const int64_t row_off = i * g.dh - g.ph;  // ih = oh + row_off
  const int64_t a = std::clamp(-row_off, oh0, oh1);
  const int64_t b = std::clamp(g.height - row_off, a, oh1);
  if (a >= b || lo >= hi) return;
  const T* s = src + (a - oh0) * W + lo;
  T* d = plane + (a + row_off) * W + lo + (j * g.dw - g.pw);
  const bool whole_rows = lo == 0 && hi == W;
  const int64_t rows = whole_rows ? 1 : b - a, len = whole_rows ? (b - a) * W : hi - lo;
  for (int64_t r = 0; r < rows; ++r, s += W, d += W) {
#pragma omp simd
    for (int64_t k = 0; k < len; ++k) d[k] += s[k];
  }
}

// im[c, ih, iw] += col[r * ld + (oh - oh0) * OW + ow] over the band; the inverse
// walk of im2col. Channels are split across threads (rows of one channel
// collide).
template <typename T>
void col2im(const T* col, const ConvGeometry& g, int64_t oh0, int64_t oh1, T* im, int64_t ld) {
  const int64_t len = (oh1 - oh0) * g.out_w, plane = g.height * g.width;
  const int64_t per_channel = g.kh * g.kw;
  const bool shifted = g.sh == 1 && g.sw == 1 && g.out_w == g.width;
  parallel_for(0, g.channels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, len * per_channel)),
               [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      T* im_c = im + c * plane;
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j) {
          int64_t lo, hi;
          g.valid_cols(j, lo, hi);
          const T* src = col + ((c * g.kh + i) * g.kw + j) * ld;
          if (shifted) {
            col2im_shifted_row(src, g, i, j, oh0, oh1, lo, hi, im_c);
            continue;
          }
          const int64_t off = j * g.dw - g.pw;
          for (int64_t oh = oh0; oh < oh1; ++oh, src += g.out_w) {
            int64_t ih = oh * g.sh - g.ph + i * g.dh;
            if (ih < 0 || ih >= g.height) continue;
            T* row = im_c + ih * g.width;  // input column iw = ow * sw + off
            if (g.sw == 1) {
#pragma omp simd
              for (int64_t ow = lo; ow < hi; ++ow) row[ow + off] += src[ow];
            } else {
              for (int64_t ow = lo; ow < hi; ++ow) row[ow * g.sw + off] += src[ow];
            }
          }
        }
    }
  });
}

}  // namespace ember::cpu
