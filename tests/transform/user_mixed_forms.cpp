// Helpers taking a Tensor by value (rebound inside), ?: on tensors, where, select of a
// column, views with matmul, std::min of a cast, a scalar product of the induction variable.
#include <vmap/vmap.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
using namespace vmap;

Tensor centre(Tensor t) {
  t = t - t.mean();
  return t;
}
// CHECK: static ::vmap::batched::Value _b_centre(::vmap::batched::Value t) {
// CHECK: t = t - t.mean();  // line 10
// CHECK: return t;  // line 11

Tensor norm_row(const Tensor& t) { return centre(t) / (t.abs().sum() + 1.0); }

void mix(const Tensor& x, const Tensor& y, const Tensor& idx, Tensor& a, Tensor& b,
         Tensor& c, Tensor& d, int& smallest, double& prod) {
#pragma vmap
  for (int i = 0; i <= x.size(0) - 1; i++) {
    const auto& row = x[i];
    auto col = y.select(1, i);
    bool pos = row.sum().item<float>() > 0;
    a[i] = pos ? row : -row;
    b[i] = where(row > 1, row, zeros_like(row)) + col.sum() * 0.5;
    c[i] = row.index_select(0, idx).reshape({1, 2}).matmul(y.t()[i].narrow(0, 0, 2).reshape({2, 1}));
    d[i] = norm_row(row);
    smallest = std::min(smallest, (int)(row.amin(0).item<float>()));
    prod *= 1.0 + i * 0.5;
  }
}
// CHECK: static ::vmap::batched::Value _b_norm_row(const ::vmap::batched::Value& t) {
// CHECK: return _b_centre(t) / (vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& t) { return t.abs(); }, t).sum() + 1.0);  // line 17
// CHECK-LABEL: void mix(
// CHECK: vb::Level _b_level0(0, (x.size(0) - 1) + 1);  // line 22
// CHECK: const vb::Value& row = vb::at(x, i);  // line 23
// CHECK: vb::Value col = vb::select(y, 1, i);  // line 24
// CHECK: vb::Value pos = row.sum().item<float>() > 0;  // line 25
// CHECK: vb::at(a, i) = vb::where(pos, row, -row);  // line 26
// CHECK: vb::at(b, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& row, const auto& a, const auto& c) { return vb::where(row > 1, row, a) + c * 0.5; }, row, vb::zeros_like(row), col.sum());  // line 27
// CHECK: vb::at(c, i) = row.index_select(0, idx).reshape({1, 2}).matmul(vb::at(y.t(), i).narrow(0, 0, 2).reshape({2, 1}));  // line 28
// CHECK: vb::at(d, i) = _b_norm_row(row);  // line 29
// CHECK: vb::accumulate(smallest, vb::scalar_cast<int>((row.amin(0).item<float>())), vb::Reduce::min);  // line 30
// CHECK: vb::accumulate(prod, vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](double i) {
// CHECK-NEXT: return 1.0 + i * 0.5;
// CHECK-NEXT: }, vb::scalar_cast<double>(i)), vb::Reduce::mul);  // line 31

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) - 3.0;
  Tensor y = (arange(12).reshape({3, 4}).to(kFloat) * 0.3).cos();
  Tensor idx = tensor({int64_t(2), int64_t(0)});
  Tensor a = zeros({4, 3}), b = zeros({4, 3}), c = zeros({4, 1, 1}), d = zeros({4, 3});
  int smallest = 100;
  double prod = 2.0;
  mix(x, y, idx, a, b, c, d, smallest, prod);
  std::cout << a << "\n" << b << "\n" << c << "\n" << d << "\n" << smallest << " " << prod << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
