// `x.var(0)` and `x.std(0)` reduce dim 0, as LibTorch's var(int64_t dim) overloads do (issue
// 31: the 0 was taken as the flag unbiased=false over the whole example, in the loop as
// written and in the batched code); `var(false)` / `var(true)` stay the flag. Per example,
// member and free, with a dim in a variable, unbiased and keepdim after it. main() prints
// values that differ if either side took the 0 as the flag.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void spreads(const Tensor& x, Tensor& columns, Tensor& rows, Tensor& whole) {
  int64_t d = 1;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    columns[i] = x[i].var(0) + var(x[i], 0, false) * 10;
    rows[i] = x[i].std(d) + vmap::std(x[i], 1, true, true).squeeze(1) * 10;
    whole[i] = x[i].var(false) + var(x[i], true) * 10 + x[i].std(0).sum() * 100;
  }
}
// CHECK: } else { // clang-vmap: batched from line 13
// CHECK: vb::at(columns, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return a + b * 10; }, vb::at(x, i).var(0), vb::var(vb::at(x, i), 0, false));  // line 14
// CHECK: vb::at(rows, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return a + b * 10; }, vb::at(x, i).std(d), vb::std(vb::at(x, i), 1, true, true).squeeze(1));  // line 15
// CHECK: vb::at(whole, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c) { return a + b * 10 + c * 100; }, vb::at(x, i).var(false), vb::var(vb::at(x, i), true), vb::at(x, i).std(0).sum());  // line 16

int main() {
  const int64_t n = 3;
  Tensor x = (arange(n * 12).reshape({n, 3, 4}).to(kFloat) * 0.7).sin() * 3;
  Tensor columns = zeros({n, 4}), rows = zeros({n, 3}), whole = zeros({n});
  spreads(x, columns, rows, whole);
  std::cout << columns << "\n" << rows << "\n" << whole << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
