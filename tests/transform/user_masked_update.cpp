// A per-example if/else with a store in one branch only.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void clip_or_reset(const Tensor& x, Tensor& out, Tensor& resets) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float peak = x[i].amax(0).item<float>();
    if (peak > 5.0f) {
      out[i] = x[i].clamp(-1.0, 1.0);
      resets[i] = 1;
    } else {
      out[i] = x[i] * 0.5;
    }
  }
}
// CHECK-LABEL: void clip_or_reset(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 8
// CHECK: vb::Value peak = vb::at(x, i).amax(0).item<float>();  // line 9
// CHECK: { vb::Where _b_where0(peak > 5.0f);  // line 10
// CHECK: vb::at(out, i) = vb::at(x, i).clamp(-1.0, 1.0);  // line 11
// CHECK: vb::at(resets, i) = 1;  // line 12
// CHECK: vb::at(out, i) = vb::at(x, i) * 0.5;  // line 14

int main() {
  Tensor x = arange(24).reshape({6, 4}).to(kFloat) - 10.0;
  Tensor out = zeros({6, 4});
  Tensor resets = zeros({6}, kInt32);
  clip_or_reset(x, out, resets);
  std::cout << out << "\n" << resets << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
