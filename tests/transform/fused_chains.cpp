// Chains of pointwise ops consumed by a reduction, a store or an accumulator become one
// compiled kernel each (Note [Which chains are fused] in transform/fuse.cpp): the user's own
// expression as a lambda beside the statement.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// The seed's form: a squared distance per pair, with pow(2).
void squared_distances(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      out[i][j] = (x[i] - y[j]).pow(2).sum();
}
// CHECK-LABEL: void squared_distances(
// CHECK: out, i)[j] = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return (a - b).pow(2); }, vb::at(x, i), vb::at(y, j)).sum();  // line 14

// The samples' form: a local difference, squared, summed, then a root.
void distances(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) {
      Tensor difference = x[i] - y[j];
      out[i][j] = (difference * difference).sum().sqrt();
    }
}
// CHECK-LABEL: void distances(
// CHECK: vb::at(out, i)[j] = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) {
// CHECK-NEXT: auto difference = a - b;  // line 25
// CHECK-NEXT: return difference * difference;
// CHECK-NEXT: }, vb::at(x, i), vb::at(y, j)).sum().sqrt();  // lines 25-26

// A weighted mean with a loop-invariant weight and scalar; a store of a chain; a double
// accumulator of a product.
double weighted(const Tensor& x, const Tensor& w, float bias, Tensor& means, Tensor& scaled) {
  Tensor total = zeros({}, kDouble);
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    means[i] = mean(abs(x[i] * w - bias));
    scaled[i] = (x[i] / (w + 1)).clamp(-1.0, 1.0).exp();
    total += x[i][0] * w[1];
  }
  return total.item<double>();
}
// CHECK-LABEL: double weighted(
// CHECK: vb::at(means, i) = vb::mean(vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& w, const auto& bias) { return vb::abs(a * w - bias); }, vb::at(x, i), w, bias));  // line 41
// CHECK-NEXT: vb::at(scaled, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return (a / b).clamp(-1.0, 1.0).exp(); }, vb::at(x, i), (w + 1));  // line 42
// CHECK-NEXT: vb::accumulate(total, vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return a * b; }, vb::at(x, i)[0], w[1]), vb::Reduce::add);  // line 43

// A sum and a mean over the example's last dim (y's rows kept), member and free forms; a
// sum over another dim is fused too (the kernel runs the batched ops for it).
void row_squares(const Tensor& x, const Tensor& y, Tensor& sums, Tensor& means,
                 Tensor& columns) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    sums[i] = (x[i] - y).pow(2).sum(1);
    means[i] = mean(abs(x[i] - y), -1);
    columns[i] = (x[i] - y).pow(2).sum(0);
  }
}
// CHECK-LABEL: void row_squares(
// CHECK: vb::at(sums, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& y) { return (a - y).pow(2); }, vb::at(x, i), y).sum(1);  // line 58
// CHECK-NEXT: vb::at(means, i) = vb::mean(vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& y) { return vb::abs(a - y); }, vb::at(x, i), y), -1);  // line 59
// CHECK-NEXT: vb::at(columns, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& y) { return (a - y).pow(2); }, vb::at(x, i), y).sum(0);  // line 60

// Integer tensors: the same kernel, run by the batched ops.
void integer_squares(const Tensor& k, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < k.size(0); ++i)
    out[i] = (k[i] * k[i] - 1).sum();
}
// CHECK-LABEL: void integer_squares(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) { return a * a - 1; }, vb::at(k, i)).sum();  // line 72

int main() {
  Tensor x = (arange(24).reshape({6, 4}).to(kFloat) - 7.0) / 3.0;
  Tensor y = cos(arange(12).reshape({3, 4}).to(kFloat));
  Tensor squares = zeros({6, 3}), roots = zeros({6, 3});
  squared_distances(x, y, squares);
  distances(x, y, roots);
  std::cout << squares << "\n" << roots << "\n";

  Tensor w = tensor({0.5, -1.0, 2.0, 0.25}).to(kFloat);
  Tensor means = zeros({6}), scaled = zeros({6, 4});
  std::cout << weighted(x, w, 0.5f, means, scaled) << "\n" << means << "\n" << scaled << "\n";
  Tensor xd = x.to(kDouble);
  std::cout << weighted(xd, w.to(kDouble), 0.5f, means, scaled) << "\n" << means << "\n";

  Tensor row_sums = zeros({6, 3}), row_means = zeros({6, 3}), columns = zeros({6, 4});
  row_squares(x, y, row_sums, row_means, columns);
  std::cout << row_sums << "\n" << row_means << "\n" << columns << "\n";

  Tensor k = arange(12).reshape({3, 4});
  Tensor counts = zeros({3}, kLong);
  integer_squares(k, counts);
  std::cout << counts << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
