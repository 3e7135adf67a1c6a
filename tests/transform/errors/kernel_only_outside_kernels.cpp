// Code only a scalar kernel runs (a bit operator, a standard function of numbers the
// batched layer has no op for) where no kernel holds it: refused at it, with what to change.
#include <vmap/vmap.hpp>
#include <cmath>
using namespace vmap;

float quarter(float v) { return std::round(v * 4) / 4; }

void scaled_rows(const Tensor& x, const Tensor& k, Tensor& out, Tensor& parity) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float s = x[i].sum().item<float>();
    out[i] = x[i] * std::round(s);
// CHECK: {{.*}}kernel_only_outside_kernels.cpp:[[@LINE-1]]:21: error: call to 'round' has no batching rule and cannot run per example
// CHECK: note: only a compiled kernel of the loop's own C++ runs this, and none holds it here
    parity[i] = x[i] * (k[i].item<int>() ^ 1);
// CHECK: {{.*}}kernel_only_outside_kernels.cpp:[[@LINE-1]]:25: error: operator '^' on a per-example scalar is not supported in the body of a vmap loop
// CHECK: note: only a compiled kernel
  }
}

// A helper's clone runs where the loop reads its value as a tensor's operand.
void through_a_helper(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = x[i] * quarter(x[i].sum().item<float>());
}
// CHECK: {{.*}}kernel_only_outside_kernels.cpp:7:33: error: call to 'round' has no batching rule and cannot run per example
// CHECK: note: only a compiled kernel
// CHECK: {{.*}}kernel_only_outside_kernels.cpp:25:59: note: in 'quarter', called here in a vmap loop
// CHECK: 3 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
