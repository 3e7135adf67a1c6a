// Plain inner loops whose trips are independent run as levels (Note [Plain loops as levels]
// in transform/passes.cpp); the others stay loops. main() prints every result, so the
// differential test compares each with the loop as written.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// The pairs of a row in a plain loop: the distances of every pair at once.
void distances(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 0; j < y.size(0); ++j) {
      Tensor difference = x[i] - y[j];
      out[i][j] = (difference * difference).sum().sqrt();
    }
}
// CHECK-LABEL: void distances(
// CHECK: vb::Level _b_level1(0, y.size(0));  // line 12
// CHECK-NEXT: const vb::Value j = _b_level1.index();
// CHECK-NEXT: vb::at(out, i)[j] = vb::fused(
// CHECK: }, vb::at(x, i), vb::at(y, j)).sum().sqrt();  // lines 13-14

// A reduction over the trips: one over the level.
Tensor sum_of_products(const Tensor& x, const Tensor& y) {
  Tensor total = zeros({x.size(1)});
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 0; j < y.size(0); ++j)
      total += x[i] * y[j];
  return total;
}
// CHECK-LABEL: Tensor sum_of_products(
// CHECK: vb::Level _b_level1(0, y.size(0));  // line 28
// CHECK-NEXT: const vb::Value j = _b_level1.index();
// CHECK-NEXT: vb::accumulate(

// Each trip reads the slot the trip before wrote: the loop stays a loop.
void running_sum(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 1; j < x.size(1); ++j)
      out[i][j] = out[i][j - 1] + x[i][j];
}
// CHECK-LABEL: void running_sum(
// CHECK-NOT: _b_level1
// CHECK: for (int64_t j = 1; j < x.size(1); ++j) {  // line 41

// A C++ scalar of the row updated by each trip, no reduction: the loop stays a loop.
void decayed(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float t = 0;
    for (int64_t j = 0; j < x.size(1); ++j)
      t = t * 0.5f + x[i][j].item<float>();
    out[i] = t;
  }
}
// CHECK-LABEL: void decayed(
// CHECK-NOT: _b_level1
// CHECK: vb::fused_scalar(

// A row gathered at an index each example computes: made for every trip at once it would
// be a copy the loop as written never holds (a temporary that grows with the loop), so
// the loop stays a loop.
void gathered_rows(const Tensor& table, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < index.size(0); ++i)
    for (int64_t k = 0; k < index.size(1); ++k)
      out[i] += table[index[i][k].item<int64_t>()];
}
// CHECK-LABEL: void gathered_rows(
// CHECK-NOT: _b_level1
// CHECK: for (int64_t k = 0; k < index.size(1); ++k) {  // line 68

// The loop over j runs as a level; the loop over k, reduced into s, stays in the kernel of
// each (i, j): as a level every trip's d would be made at once.
void scalar_distances(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 0; j < y.size(0); ++j) {
      float s = 0;
      for (int64_t k = 0; k < x.size(1); ++k) {
        float d = x[i][k].item<float>() - y[j][k].item<float>();
        s += d * d;
      }
      out[i][j] = s;
    }
}
// CHECK-LABEL: void scalar_distances(
// CHECK: vb::Level _b_level1(0, y.size(0));  // line 80
// CHECK-NOT: _b_level2
// CHECK: for (int64_t k = 0; k < a; ++k) {  // line 82

// A bound that depends on the row (a loop that may run no trip, an int result): a level's
// bound may not depend on an outer example, so the loop stays a loop, in a kernel that
// stores elements, each example running its own trips.
void lower_triangle(Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < out.size(0); ++i)
    for (int64_t j = 0; j < i; ++j)
      out[i][j] = i * 10 + j;
}
// CHECK-LABEL: void lower_triangle(
// CHECK-NOT: _b_level1
// CHECK: vb::fused_scalar([](int64_t i, vb::WritableElements a) {
// CHECK-NEXT: for (int64_t j = 0; j < i; ++j)  // line 100
// CHECK-NEXT: a[j] = i * 10 + j;
// CHECK-NEXT: }, i, vb::at(out, i));  // line 100

// A `break` ties each trip to the ones before: the loop stays a loop.
void until_negative(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 0; j < x.size(1); ++j) {
      if (x[i][j].item<float>() < 0) break;
      out[i][j] = 1;
    }
}
// CHECK-LABEL: void until_negative(
// CHECK-NOT: _b_level1

// A local row of the example filled by one loop, then stored; a second loop that reads the
// first loop's results at other trips' slots; two loops deep; a masked store in a level.
void forms_around(const Tensor& x, const Tensor& y, Tensor& doubled, Tensor& shifted,
                  Tensor& outer, Tensor& positive) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor row = zeros({x.size(1)});
    for (int64_t j = 0; j < x.size(1); ++j)
      row[j] = x[i][j] * 2;
    doubled[i] = row;
    for (int64_t j = 0; j < x.size(1); ++j)
      shifted[i][j] = x[i][j] + 1;
    for (int64_t j = 0; j < x.size(1); ++j)
      shifted[i][j] = shifted[i][(j + 1) % x.size(1)] * 3;
    for (int64_t j = 0; j < y.size(0); ++j)
      for (int64_t k = 0; k < y.size(1); ++k)
        outer[i][j][k] = x[i][k] * y[j][k] + j - k;
    for (int64_t j = 0; j < x.size(1); ++j)
      if (x[i][j].item<float>() > 0) positive[i][j] = x[i][j];
  }
}
// CHECK-LABEL: void forms_around(
// CHECK: vb::Level _b_level1(0, x.size(1));  // line 129
// CHECK: row[j] = vb::at(x, i)[j] * 2;  // line 130
// CHECK: vb::Level _b_level1_1(0, x.size(1));  // line 132
// CHECK: for (int64_t j = 0; j < x.size(1); ++j) {  // line 134
// CHECK: vb::Level _b_level1_2(0, y.size(0));  // line 136
// CHECK: vb::Level _b_level2(0, y.size(1));  // line 137
// CHECK: vb::Level _b_level1_3(0, x.size(1));  // line 139
// CHECK-NEXT: const vb::Value j = _b_level1_3.index();
// CHECK-NEXT: { vb::Where _b_where0(vb::at(x, i)[j].item<float>() > 0);  // line 140

int main() {
  const Tensor x = (arange(12).reshape({4, 3}).to(kFloat) - 5.0) / 4.0;
  const Tensor y = cos(arange(15).reshape({5, 3}).to(kFloat));
  Tensor out = zeros({4, 5});
  distances(x, y, out);
  std::cout << out << "\n";
  std::cout << sum_of_products(x, y) << "\n";
  Tensor sums = x.clone();
  running_sum(x, sums);
  std::cout << sums << "\n";
  Tensor decays = zeros({4});
  decayed(x, decays);
  std::cout << decays << "\n";
  const Tensor table = arange(10).reshape({5, 2}).to(kFloat);
  const Tensor index = tensor({0, 4, 4, 1, 2, 3, 3, 3, 0}).reshape({3, 3});
  Tensor rows = zeros({3, 2});
  gathered_rows(table, index, rows);
  std::cout << rows << "\n";
  Tensor scalar_out = zeros({4, 5});
  scalar_distances(x, y, scalar_out);
  std::cout << scalar_out << "\n";
  Tensor triangle = full({4, 4}, -1, kInt);
  lower_triangle(triangle);
  std::cout << triangle << "\n";
  Tensor ones = zeros({4, 3});
  until_negative(x, ones);
  std::cout << ones << "\n";
  Tensor doubled = zeros({4, 3}), shifted = zeros({4, 3}), outer = zeros({4, 5, 3});
  Tensor positive = full({4, 3}, -7.0);
  forms_around(x, y, doubled, shifted, outer, positive);
  std::cout << doubled << "\n" << shifted << "\n" << outer << "\n" << positive << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
