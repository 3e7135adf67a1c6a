// Seed workload: x = x * x five times on a per-example local.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void square_five_times(const Tensor& input, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i) {
    Tensor x = input[i];
    x = x * x;
    x = x * x;
    x = x * x;
    x = x * x;
    x = x * x;
    out[i] = x;
  }
}

int main() {
  Tensor input = (arange(6).to(kFloat) / 5.0) + 0.5;
  Tensor out = zeros({6});
  square_five_times(input, out);
  std::cout << out << "\n";
}

// CHECK: vb::Value x = vb::at(input, i);  // line 9
// CHECK-NEXT: x = x * x;  // line 10
// CHECK: x = x * x;  // line 14
// CHECK-NEXT: vb::at(out, i) = x;  // line 15
