// A factory's shape may not vary per example (each example's tensor would have its own
// shape); its fill value and tensor({...})'s numbers may (per_example_tensor_literals.cpp).
#include <vmap/vmap.hpp>
using namespace vmap;

void shapes(const Tensor& x, const Tensor& counts, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t n = counts[i].item<int64_t>();
    float v = x[i].sum().item<float>();
    Tensor z = zeros({n});
    Tensor f = full({n, 2}, v);
    Tensor r = arange(n);
    Tensor o = tensor({v, 1.0f}, v > 0.0f ? kFloat64 : kFloat32);
    out[i] = z.sum() + f.sum() + r.sum() + o.sum();
  }
}
// CHECK: {{.*}}factory_per_example_shape.cpp:11:22: error: per-example value used as argument 1 of 'zeros' (a shape), which must be the same for every example
// CHECK: {{.*}}factory_per_example_shape.cpp:12:21: error: per-example value used as argument 1 of 'full' (a shape), which must be the same for every example
// CHECK: {{.*}}factory_per_example_shape.cpp:13:16: error: per-example value used as an argument of the factory 'arange', which must be the same for every example
// CHECK: {{.*}}factory_per_example_shape.cpp:14:34: error: per-example value used as argument 2 of 'tensor' (tensor options), which must be the same for every example
// CHECK: 4 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
