// Canonical loop forms: size_t, auto, <=, !=, i++, i += 1, select and copy_ stores.
#include <vmap/vmap.hpp>
#include <cstddef>
#include <iostream>
using namespace vmap;

void forms(const Tensor& x, Tensor& a, Tensor& b, Tensor& c, Tensor& d) {
  const size_t n = static_cast<size_t>(x.size(0));
#pragma vmap
  for (size_t i = 0; i < n; i++)
    a[i] = x[i] + 1;
#pragma vmap
  for (auto i = 1; i <= 3; i += 1)
    b[i] = x[i] - 1;
#pragma vmap
  for (int i = 0; i != 4; ++i)
    c.select(0, i) = x.select(0, i) * 3;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    d[i].copy_(x[i].neg());
}
// CHECK-LABEL: void forms(
// CHECK: vb::Level _b_level0(0, n);  // line 10
// CHECK: vb::at(a, i) = vb::at(x, i) + 1;  // line 11
// CHECK: vb::Level _b_level0(1, (3) + 1);  // line 13
// CHECK: vb::at(b, i) = vb::at(x, i) - 1;  // line 14
// CHECK: vb::Level _b_level0(0, 4);  // line 16
// CHECK: vb::select(c, 0, i) = vb::select(x, 0, i) * 3;  // line 17
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 19
// CHECK: vb::at(d, i).copy_(vb::at(x, i).neg());  // line 20

int main() {
  Tensor x = arange(8).reshape({4, 2}).to(kFloat);
  Tensor a = zeros({4, 2}), b = zeros({4, 2}), c = zeros({4, 2}), d = zeros({4, 2});
  forms(x, a, b, c, d);
  std::cout << a << "\n" << b << "\n" << c << "\n" << d << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
