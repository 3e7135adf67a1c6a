// Dot products under two vmap levels, as users write them: each operand varies over its own
// level (x[i].dot(y[j]): one x @ y^T), over a subset (x[i].dot(x[i])), or both over both
// (a pair per example; a helper's local dotted with itself, the sum of its squares in one
// kernel: Note [Dot products of a value with itself] in transform/fuse_squares.cpp); mv of a
// per-example matrix; float64 as float32 (Note [Dot products over levels] in
// rules/src/batched/batched_linalg.cpp).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// |x|^2 - 2 x.y + |y|^2, through dot products.
void expanded_dots(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) {
      out[i][j] = (x[i].dot(x[i]) - 2 * x[i].dot(y[j]) + y[j].dot(y[j])).sqrt();
    }
  }
}
// CHECK-LABEL: void expanded_dots(
// CHECK: vb::at(x, i).dot(vb::at(x, i)), vb::at(x, i).dot(vb::at(y, j)), vb::at(y, j).dot(vb::at(y, j))

Tensor distance(const Tensor& a, const Tensor& b) {
  Tensor d = a - b;
  return d.dot(d).sqrt();
}
// CHECK-LABEL: static ::vmap::batched::Value _b_distance(
// CHECK: return vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) {
// CHECK: }, a, b).dot_self().sqrt();

void through_a_helper(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) {
      out[i][j] = distance(x[i], y[j]);
    }
  }
}
// CHECK-LABEL: void through_a_helper(
// CHECK: vb::at(out, i)[j] = _b_distance(vb::at(x, i), vb::at(y, j));

// A Linear layer's inner loop over outputs, as a second level.
void linear_by_dots(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
#pragma vmap
    for (int64_t o = 0; o < weight.size(0); ++o) {
      out[i][o] = weight[o].dot(x[i]) + bias[o];
    }
  }
}
// CHECK-LABEL: void linear_by_dots(
// CHECK: vb::at(weight, o).dot(vb::at(x, i))

// Each example's own pair of vectors, and a per-example matrix by a per-example vector.
void pairs_and_mv(const Tensor& a, const Tensor& b, const Tensor& m, const Tensor& y,
                  Tensor& dots, Tensor& products) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
#pragma vmap
    for (int64_t j = 0; j < a.size(1); ++j) {
      dots[i][j] = a[i][j].dot(b[i][j]);
      products[i][j] = m[i].mv(y[j]);
    }
  }
}
// CHECK-LABEL: void pairs_and_mv(
// CHECK: vb::at(a, i)[j].dot(vb::at(b, i)[j])
// CHECK: vb::at(m, i).mv(vb::at(y, j))

int main() {
  for (Dtype dtype : {kFloat32, kFloat64}) {
    Tensor x = (arange(15).reshape({5, 3}).to(dtype) * 0.5).sin() * 4;
    Tensor y = (arange(12).reshape({4, 3}).to(dtype) * 0.7).cos() * 3;
    Tensor out = zeros({5, 4}, dtype);
    expanded_dots(x, y, out);
    std::cout << out << "\n";
    through_a_helper(x, y, out);
    std::cout << out << "\n";
    Tensor bias = arange(4).to(dtype) - 1.5;
    linear_by_dots(x, y, bias, out);
    std::cout << out << "\n";
    Tensor a = (arange(60).reshape({5, 4, 3}).to(dtype) * 0.3).sin();
    Tensor b = (arange(60).reshape({5, 4, 3}).to(dtype) * 0.2).cos();
    Tensor m = (arange(30).reshape({5, 2, 3}).to(dtype) * 0.4).sin();
    Tensor dots = zeros({5, 4}, dtype), products = zeros({5, 4, 2}, dtype);
    pairs_and_mv(a, b, m, y, dots, products);
    std::cout << dots << "\n" << products << "\n";
  }
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
