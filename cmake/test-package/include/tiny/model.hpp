#pragma once

#include <vmap/vmap.hpp>

namespace tiny {
inline constexpr double kOffset = 0.5;
// out[i] = x[i] * TINY_SCALE + kOffset, one row at a time.
void scale_rows(const vmap::Tensor& x, vmap::Tensor& out);
// out[i] = x[i] * 6 in Release (returns 1), x[i] - 1 otherwise (returns 0).
int64_t flag_rows(const vmap::Tensor& x, vmap::Tensor& out);
}  // namespace tiny
