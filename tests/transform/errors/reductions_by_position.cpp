// std::max / std::min / std::fmax / std::fmin on floating-point numbers keep or drop a NaN
// (and pick between -0 and +0) by the position of their operands: a reduction into a C++
// scalar is folded in loop order with the accumulator first, so the accumulator must be
// the first argument; one of an outer vmap level is reduced over the batch, where they
// would not be kept as the call keeps them.
#include <vmap/vmap.hpp>
#include <algorithm>
#include <cmath>
using namespace vmap;

void extremes(const Tensor& x, Tensor& out, float& top) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float v = x[i].sum().item<float>();
    top = std::max(v, top);
// CHECK: {{.*}}reductions_by_position.cpp:[[@LINE-1]]:5: error: reduction into 'top' with 'max' of floating-point numbers and the accumulator second
// CHECK: note: std::max, std::min, std::fmax and std::fmin keep or drop a NaN
    float row = -1.0f;
#pragma vmap
    for (int64_t j = 0; j < x.size(1); ++j)
      row = std::fmax(row, x[i][j].item<float>());
// CHECK: {{.*}}reductions_by_position.cpp:[[@LINE-1]]:7: error: floating-point reduction with 'fmax' into 'row', which differs per example of an outer vmap loop
    out[i] = row;
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
