// A read of the example's own slot spelt through a select of another dim first:
// `x.select(1, 0)[i]` is x[i][0], which this example wrote (issue 31: it was refused as a
// slot of another iteration). Reads of other examples' slots stay refused
// (errors/other_slot_through_select.cpp).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void own_slots(Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    x[i][0] = x[i].sum();
    x[i][2] = x.select(1, 0)[i] * 2;
    out[i] = x.select(1, 2)[i] + x.select(0, i).select(0, 1);
  }
}
// CHECK-LABEL: void own_slots(
// CHECK: vb::at(x, i)[0] = vb::at(x, i).sum();  // line 12
// CHECK: vb::at(x, i)[2] = vb::at(x.select(1, 0), i) * 2;  // line 13
// CHECK: vb::at(out, i) = vb::at(x.select(1, 2), i) + vb::select(x, 0, i).select(0, 1);  // line 14

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat);
  Tensor out = zeros({4});
  own_slots(x, out);
  std::cout << x << "\n" << out << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
