// A plain inner loop whose bound is a per-example value.
#include <vmap/vmap.hpp>
using namespace vmap;

void ragged(const Tensor& x, const Tensor& lengths, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t n = lengths[i].item<int64_t>();
    for (int64_t k = 0; k < n; ++k)
// CHECK: {{.*}}plain_loop_bound.cpp:[[@LINE-1]]:25: error: per-example value used as the bound of a plain loop, which must be the same for every example
      out[i][k] = x[i][k];
  }
}
