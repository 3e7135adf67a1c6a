// A signed operand of an unsigned comparison is converted by C++ (-1 becomes SIZE_MAX),
// which the batched integers do not; a per-example unsigned integer updated in place
// (`+=`, `-=`, `*=`, `++`, `--`) would wrap around in C++ but not in the batched int64 that
// holds it (`u = u * 31u` is batched with the wrap).
#include <vmap/vmap.hpp>
#include <cstddef>
#include <cstdint>
using namespace vmap;

void updates(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    std::size_t k = x[i].item<int64_t>();
    int64_t floor = x[i].item<int64_t>() - 9;
    out[i][0] = k < floor;
// CHECK: {{.*}}unsigned_updates_and_comparisons.cpp:[[@LINE-1]]:21: error: a signed per-example operand of an unsigned '<' is not supported in the body of a vmap loop
    uint32_t h = static_cast<uint32_t>(x[i].item<int64_t>());
    h *= 31u;
// CHECK: {{.*}}unsigned_updates_and_comparisons.cpp:[[@LINE-1]]:5: error: '*=' on a per-example unsigned integer is not supported in the body of a vmap loop
// CHECK: note: C++ wraps an unsigned integer around
    --k;
// CHECK: {{.*}}unsigned_updates_and_comparisons.cpp:[[@LINE-1]]:5: error: '--' on a per-example unsigned integer is not supported in the body of a vmap loop
    out[i][1] = static_cast<int64_t>(h + k);
  }
}
