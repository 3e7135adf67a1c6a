#pragma once

#include <vmap/vmap.hpp>

namespace tiny {
inline constexpr double kOffset = 0.5;
// out[i] = x[i] * TINY_SCALE + kOffset, one row at a time.
void scale_rows(const vmap::Tensor& x, vmap::Tensor& out);
}  // namespace tiny
