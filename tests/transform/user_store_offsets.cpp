// Stores into a slot of nested vmap loops that start past 0 (a literal, a variable, per
// level), at a sub-index the same for every example: `[c]`, `.select(d, c)`, `.narrow`, a
// view local, in place. A j loop from 1 makes the slots of out[i][j] not one run of memory;
// each store must still reach `out` (issue 31: they were lost).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void two_levels(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
#pragma vmap
    for (int64_t j = 1; j < x.size(1); ++j) {
      out[i][j][3] = x[i][j].amax(0);
      out[i][j].select(0, 2) = x[i][j].sum();
      Tensor slot = out[i][j];
      slot[1] = x[i][j][0] * 10;
      out[i][j].narrow(0, 4, 2) = x[i][j].narrow(0, 1, 2);
      out[i][j][0] += 100;
    }
  }
}
// CHECK-LABEL: void two_levels(
// CHECK: vb::Level _b_level1(1, x.size(1));  // line 13
// CHECK: vb::at(out, i)[j][3] = vb::at(x, i)[j].amax(0);  // line 14
// CHECK: vb::at(out, i)[j].select(0, 2) = vb::at(x, i)[j].sum();  // line 15
// CHECK: vb::Value slot = vb::at(out, i)[j];  // line 16
// CHECK: slot[1] = vb::at(x, i)[j][0] * 10;  // line 17
// CHECK: vb::at(out, i)[j].narrow(0, 4, 2) = vb::at(x, i)[j].narrow(0, 1, 2);  // line 18
// CHECK: vb::at(out, i)[j][0] += 100;  // line 19

void three_levels(const Tensor& x, Tensor& out, int64_t from) {
#pragma vmap
  for (int64_t i = from; i < x.size(0); ++i) {
#pragma vmap
    for (int64_t j = 1; j < x.size(1); ++j) {
#pragma vmap
      for (int64_t k = 2; k <= 3; ++k) {
        out[i][j][k].select(0, 1) = x[i][j][k - 1] + x[i][j][k];
        out.select(1, j)[i][k][0].copy_(x[i][j][k]);
      }
    }
  }
}
// CHECK-LABEL: void three_levels(
// CHECK: vb::Level _b_level0(from, x.size(0));  // line 34
// CHECK: vb::Level _b_level1(1, x.size(1));  // line 36
// CHECK: vb::Level _b_level2(2, (3) + 1);  // line 38
// CHECK: vb::at(out, i)[j][k].select(0, 1) = vb::at(x, i)[j][k - 1] + vb::at(x, i)[j][k];  // line 39
// CHECK: vb::select(out, 1, j)[i][k][0].copy_(vb::at(x, i)[j][k]);  // line 40

void outer_from_one(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 1; i < x.size(0); ++i) {
#pragma vmap
    for (int64_t j = 0; j < x.size(1); ++j)
      out[i][j].select(0, 5) = x[i][j].amin(0);
  }
}
// CHECK-LABEL: void outer_from_one(
// CHECK: vb::Level _b_level0(1, x.size(0));  // line 54
// CHECK: vb::at(out, i)[j].select(0, 5) = vb::at(x, i)[j].amin(0);  // line 57

int main() {
  Tensor x = (arange(3 * 4 * 6).reshape({3, 4, 6}).to(kFloat) * 0.7).sin();
  Tensor out = zeros({3, 4, 6});
  two_levels(x, out);
  std::cout << out << "\n";
  Tensor deep = zeros({3, 4, 4, 2});
  three_levels(x, deep, 1);
  std::cout << deep << "\n";
  Tensor rows = zeros({3, 4, 6});
  outer_from_one(x, rows);
  std::cout << rows << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
