// A signed operand of a uint32_t comparison is converted by C++ (-1 becomes 2^32 - 1),
// which the batched integers do not; a per-example size_t argument of a std function
// (std::max compares, std::sqrt converts) would be read as int64; a per-example unsigned integer updated in place
// (`+=`, `-=`, `*=`, `++`, `--`) would wrap around in C++ but not in the batched int64 that
// holds it (`u = u * 31u` is batched with the wrap).
#include <vmap/vmap.hpp>
#include <cstddef>
#include <algorithm>
#include <cstdint>
using namespace vmap;

void updates(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    std::size_t k = x[i].item<int64_t>();
    uint32_t small = static_cast<uint32_t>(x[i].item<int64_t>());
    int32_t floor = x[i].item<int32_t>() - 9;
    out[i][0] = small < floor;
// CHECK: {{.*}}unsigned_updates_and_comparisons.cpp:[[@LINE-1]]:25: error: a signed per-example operand of an unsigned '<' is not supported in the body of a vmap loop
    out[i][2] = static_cast<int64_t>(std::max(k, std::size_t{4}));
// CHECK: {{.*}}unsigned_updates_and_comparisons.cpp:[[@LINE-1]]:47: error: a per-example size_t argument of 'max' is not supported in the body of a vmap loop
// CHECK: note: the batched integers are int64, which this function would read as another number
    uint32_t h = static_cast<uint32_t>(x[i].item<int64_t>());
    h *= 31u;
// CHECK: {{.*}}unsigned_updates_and_comparisons.cpp:[[@LINE-1]]:5: error: '*=' on a per-example unsigned integer is not supported in the body of a vmap loop
// CHECK: note: C++ wraps an unsigned integer around
    --k;
// CHECK: {{.*}}unsigned_updates_and_comparisons.cpp:[[@LINE-1]]:5: error: '--' on a per-example unsigned integer is not supported in the body of a vmap loop
    out[i][1] = static_cast<int64_t>(h + k);
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
