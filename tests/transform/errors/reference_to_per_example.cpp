// A non-const reference bound to a per-example value (the induction variable, a local
// that differs per example) cannot be bound to its batched value in the rewrite.
// Const references are accepted (user_aliases_in_body.cpp).
#include <vmap/vmap.hpp>
#include <cstdint>
using namespace vmap;

void induction_reference(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t& r = i;
// CHECK: {{.*}}reference_to_per_example.cpp:[[@LINE-1]]:5: error: non-const reference 'r' bound to the per-example value 'i'
// CHECK: note: declare it 'const auto &' or copy the value
    out[i] = x[i] * r;
  }
}

void local_reference(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor h = x[i] * 2;
    auto& r = h;
// CHECK: {{.*}}reference_to_per_example.cpp:[[@LINE-1]]:5: error: non-const reference 'r' bound to the per-example value 'h'
    out[i] = r;
  }
}
// CHECK: 2 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
