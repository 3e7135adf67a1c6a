// Calls of functions defined in this file: a pure function with a tensor signature
// and no batching rule runs once per example (with a warning).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

Tensor soft_clip(const Tensor& v, double limit) {
  Tensor scaled = v / limit;
  return scaled.tanh() * limit;
}

void clip_rows(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = soft_clip(x[i], 3.0) + 1;
}

// Called with loop-invariant arguments only: stays a plain call.
void add_clipped_bias(const Tensor& x, const Tensor& bias, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + soft_clip(bias, 1.0);
}

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) - 6.0;
  Tensor out = zeros({4, 3});
  clip_rows(x, out);
  std::cout << out << "\n";
  Tensor out2 = zeros({4, 3});
  add_clipped_bias(x, tensor({0.5f, 2.0f, -3.0f}), out2);
  std::cout << out2 << "\n";
}

// CHECK-LABEL: void clip_rows(
// CHECK: vb::at(out, i) = vb::per_example("soft_clip", [&](std::vector<vmap::Tensor> _b_args) { return soft_clip(_b_args[0], 3.0); }, {vb::at(x, i)}) + 1;  // line 15
// CHECK-LABEL: void add_clipped_bias(
// CHECK: vb::at(out, i) = vb::at(x, i) + soft_clip(bias, 1.0);  // line 22
