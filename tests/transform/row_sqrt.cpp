// Seed workload: square root of each row.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void row_sqrt(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i].sqrt();
}

int main() {
  Tensor x = arange(20).reshape({5, 4}).to(kFloat);
  Tensor out = zeros({5, 4});
  row_sqrt(x, out);
  std::cout << out << "\n";
}

// CHECK: vb::at(out, i) = vb::at(x, i).sqrt();  // line 9

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
