// An else-if chain on a per-example scalar: masked stores, a masked reduction, an int
// local assigned in every branch.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void grade(const Tensor& scores, Tensor& grades, Tensor& bonus, float& total) {
#pragma vmap
  for (int64_t s = 0; s < scores.size(0); ++s) {
    float v = scores[s].item<float>();
    int g = 0;
    if (v >= 90.0f) {
      g = 4;
      bonus[s] = v - 90.0f;
    } else if (v >= 75.0f) {
      g = 3;
    } else if (v >= 50.0f) {
      g = 2;
    } else {
      g = 1;
      total += v;
    }
    grades[s] = g;
  }
}
// CHECK-LABEL: void grade(
// CHECK: vb::Level _b_level0(0, scores.size(0));  // line 9
// CHECK: vb::Value v = vb::at(scores, s).item<float>();  // line 10
// CHECK: vb::Value g = 0;  // line 11
// CHECK: { vb::Where _b_where0(v >= 90.0f);  // line 12
// CHECK: g = 4;  // line 13
// CHECK: vb::at(bonus, s) = v - 90.0f;  // line 14
// CHECK: { vb::Where _b_where1(v >= 75.0f);  // line 15
// CHECK: g = 3;  // line 16
// CHECK: { vb::Where _b_where2(v >= 50.0f);  // line 17
// CHECK: g = 2;  // line 18
// CHECK: g = 1;  // line 20
// CHECK: vb::accumulate(total, v, vb::Reduce::add);  // line 21
// CHECK: vb::at(grades, s) = g;  // line 23

int main() {
  Tensor scores = tensor({95.0f, 80.0f, 40.0f, 60.0f, 10.0f, 91.5f});
  Tensor grades = zeros({6}, kInt32);
  Tensor bonus = zeros({6});
  float total = 0.0f;
  grade(scores, grades, bonus, total);
  std::cout << grades << "\n" << bonus << "\n" << total << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
