// Seed workload: the upper-triangular mask, from the induction variables alone.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void triangular_mask(Tensor& mask) {
#pragma vmap
  for (int64_t i = 0; i < mask.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < mask.size(1); ++j)
      mask[i][j] = j >= i;
}

int main() {
  Tensor mask = zeros({5, 5}, kBool);
  triangular_mask(mask);
  std::cout << mask << "\n";
}

// CHECK: vb::Level _b_level0(0, mask.size(0));  // line 8
// CHECK: vb::Level _b_level1(0, mask.size(1));  // line 10
// CHECK-NEXT: const vb::Value j = _b_level1.index();
// CHECK-NEXT: vb::at(mask, i)[j] = j >= i;  // line 11
// CHECK-NOT: unsafe_overlap

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
