// `d.dot(d)` of a per-example local a region computes is the sum of d's squares (Note [Dot
// products of a value with itself] in transform/fuse_squares.cpp): one kernel of the region, its
// squares summed by vb::Fused::dot_self, in the loop body and in a helper's return; a value
// of two dims per example raises the dot's own error; two different vectors stay the
// batched dot.
#include <vmap/vmap.hpp>
#include <iostream>
#include <string>
using namespace vmap;

// The pairwise distance through a helper: the clone's return is the kernel.
Tensor distance(const Tensor& a, const Tensor& b) {
  Tensor d = a - b;
  return d.dot(d).sqrt();
}
// CHECK-LABEL: static ::vmap::batched::Value _b_distance(
// CHECK: return vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) {
// CHECK-NEXT: auto d = a - b; // line 13
// CHECK-NEXT: return d;
// CHECK-NEXT: }, a, b).dot_self().sqrt(); // lines 13-14

void through_a_helper(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      out[i][j] = distance(x[i], y[j]);
}
// CHECK-LABEL: void through_a_helper(
// CHECK: vb::at(out, i)[j] = _b_distance(vb::at(x, i), vb::at(y, j));

// The free form, of a scaled difference, in float64 too.
void free_form(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) {
      Tensor d = (x[i] - y[j]) * 0.5;
      out[i][j] = dot(d, d);
    }
}
// CHECK-LABEL: void free_form(
// CHECK: vb::at(out, i)[j] = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) {
// CHECK-NEXT: auto d = (a - b) * 0.5; // line 38
// CHECK-NEXT: return d;
// CHECK-NEXT: }, vb::at(x, i), vb::at(y, j)).dot_self(); // lines 38-39

// Two dims per example: as written, the dot raises its error.
void matrices(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor d = x[i] + 1.0f;
    out[i] = d.dot(d);
  }
}
// CHECK-LABEL: void matrices(
// CHECK: }, vb::at(x, i)).dot_self(); // lines 52-53

// Two different vectors: the batched dot, which checks their lengths.
void two_vectors(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor d = x[i] - 1.0f;
    Tensor e = y[i] * 2.0f;
    out[i] = d.dot(e);
  }
}
// CHECK-LABEL: void two_vectors(
// CHECK: vb::at(out, i) = d.dot(e);

int main() {
  Tensor x = sin(arange(40).reshape({5, 8}).to(kFloat));
  Tensor y = cos(arange(24).reshape({3, 8}).to(kFloat));
  Tensor out = zeros({5, 3});
  through_a_helper(x, y, out);
  std::cout << out << "\n";
  Tensor halves = zeros({5, 3}, kDouble);
  free_form(x.to(kDouble), y.to(kDouble), halves);
  std::cout << halves << "\n";
  Tensor products = zeros({3});
  two_vectors(x.narrow(0, 0, 3), y, products);
  std::cout << products << "\n";
  try {
    Tensor m = zeros({2});
    matrices(x.reshape({2, 4, 5}), m);
    std::cout << "no error\n";
  } catch (const Error& e) {
    std::cout << "error: " << (std::string(e.what()).find("dot: 1D tensors expected") != std::string::npos) << "\n";
  }
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
