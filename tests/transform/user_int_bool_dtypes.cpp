// Integer and bool results: counts, masks, int32 arithmetic, an int64 sum.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void count_positive(const Tensor& x, const Tensor& y, Tensor& counts, Tensor& both,
                    Tensor& shifted, int64_t& total) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor pos = x[i] > 0;
    counts[i] = pos.sum();
    both[i] = pos & (y[i] < 2);
    shifted[i] = y[i] + 3;
    total += pos.sum().item<int64_t>();
  }
}
// CHECK-LABEL: void count_positive(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 9
// CHECK: vb::Value pos = vb::at(x, i) > 0;  // line 10
// CHECK: vb::at(counts, i) = pos.sum();  // line 11
// CHECK: vb::at(both, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& pos, const auto& a) { return pos & (a < 2); }, pos, vb::at(y, i));  // line 12
// CHECK: vb::at(shifted, i) = vb::at(y, i) + 3;  // line 13
// CHECK: vb::accumulate(total, pos.sum().item<int64_t>(), vb::Reduce::add);  // line 14

int main() {
  Tensor x = arange(20).reshape({5, 4}) - 9;
  Tensor y = (arange(20).reshape({5, 4}) - 8).to(kInt32);
  Tensor counts = zeros({5}, kInt64);
  Tensor both = zeros({5, 4}, kBool);
  Tensor shifted = zeros({5, 4}, kInt32);
  int64_t total = 0;
  count_positive(x, y, counts, both, shifted, total);
  std::cout << counts << "\n" << both << "\n" << shifted << "\n" << total << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
