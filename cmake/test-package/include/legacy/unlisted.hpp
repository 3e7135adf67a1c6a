#pragma once

#include <vmap/vmap.hpp>

// A header loop that no clang_vmap_sources() call rewrites.
inline void halve_rows(const vmap::Tensor& x, vmap::Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * 0.5;
}
