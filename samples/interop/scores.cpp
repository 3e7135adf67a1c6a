// Written per example; clang_vmap_sources() rewrites the loop into batched calls.
#include "scores.hpp"

using namespace vmap;

void scores(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& out) {
#pragma vmap
  for (int64_t b = 0; b < x.size(0); ++b)
    out[b] = relu(matmul(x[b], w) + bias) * x[b].sum();
}
