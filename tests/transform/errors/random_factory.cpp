#include <vmap/vmap.hpp>
using namespace vmap;

void noisy(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + randn({x.size(1)});
// CHECK: {{.*}}random_factory.cpp:[[@LINE-1]]:21: error: random factory 'randn' in the body of a vmap loop: the generator is shared state
// CHECK: note: draw the random numbers for all examples before the loop
}
