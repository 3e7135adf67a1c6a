// Loops in a header that clang_vmap_sources() rewrites (SPEC section 6): an inline
// function, a function template (instantiated by two sources with different types) and a
// member function; the header's own "..." include resolves next to it.
#pragma once

#include <vmap/vmap.hpp>

#include "rows_detail.hpp"

namespace tiny {

// Each row centred on its mean, then rectified and scaled.
inline void centre_rows(const vmap::Tensor& x, vmap::Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = vmap::relu(x[i] - x[i].mean()) * kRowGain;
}

// Each row doubled and clamped into [lo, hi].
template <typename Bound>
void clamp_rows(const vmap::Tensor& x, vmap::Tensor& out, Bound lo, Bound hi) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = vmap::clamp(x[i] * 2, lo, hi);
}

struct RowScaler {
  float gain;
  // Row i scaled by gain and by its own index.
  void apply(const vmap::Tensor& x, vmap::Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = x[i] * gain * (i + 1);
  }
};

}  // namespace tiny
