// add's alpha is the same for every example; a per-example one is refused (`x + s * y`
// says the same with per-example operands).
#include <vmap/vmap.hpp>
using namespace vmap;

void scaled(const Tensor& x, const Tensor& y, const Tensor& s, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i].add(y[i], s[i].item<float>());
// CHECK: {{.*}}per_example_alpha.cpp:[[@LINE-1]]:29: error: per-example value used as argument 3 of 'add', which must be the same for every example
}
