// A scratch tensor written in a nested vmap loop and under a per-example if.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void scratch(const Tensor& x, Tensor& out, Tensor& flags) {
  const int64_t m = x.size(1);
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor row = zeros({m});
#pragma vmap
    for (int64_t j = 0; j < m; ++j)
      row[j] = x[i][j] * j;
    Tensor flag = zeros({2}, kBool);
    if (row.sum().item<float>() > 10.0f)
      flag[1] = true;
    flag.select(0, 0).fill_(x[i][0].item<float>() > 2.0f);
    out[i] = row;
    flags[i] = flag;
  }
}
// CHECK-LABEL: void scratch(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 9
// CHECK: vb::Value row = zeros({m});  // line 10
// CHECK: row = vb::where(i == i, row, row);  // clang-vmap: one 'row' per example
// CHECK: vb::Level _b_level1(0, m);  // line 12
// CHECK: row[j] = vb::at(x, i)[j] * j;  // line 13
// CHECK: vb::Value flag = zeros({2}, kBool);  // line 14
// CHECK: flag = vb::where(i == i, flag, flag);  // clang-vmap: one 'flag' per example
// CHECK: { vb::Where _b_where0(row.sum().item<float>() > 10.0f);  // line 15
// CHECK: flag[1] = true;  // line 16
// CHECK: flag.select(0, 0).fill_(vb::at(x, i)[0].item<float>() > 2.0f);  // line 17
// CHECK: vb::at(out, i) = row;  // line 18
// CHECK: vb::at(flags, i) = flag;  // line 19

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) - 3.0;
  Tensor out = zeros({4, 3});
  Tensor flags = zeros({4, 2}, kBool);
  scratch(x, out, flags);
  std::cout << out << "\n" << flags << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
