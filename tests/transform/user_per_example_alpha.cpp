// add / sub's alpha (a + alpha * b) may differ per example (SPEC section 6: any argument of
// any op), in the free and the member form, from a tensor element, from the induction
// variable and from a per-example local; a loop-invariant alpha keeps the one-op form.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// A learning-rate-per-model ensemble step: w[m] - lr[m] * g[m].
void sgd_step(Tensor& weights, const Tensor& grads, const Tensor& rates) {
#pragma vmap
  for (int64_t m = 0; m < weights.size(0); ++m)
    weights[m] = sub(weights[m], grads[m], rates[m].item<float>());
}
// CHECK-LABEL: void sgd_step(
// CHECK: vb::at(weights, m) = vb::sub(vb::at(weights, m), vb::at(grads, m), vb::at(rates, m).item<float>());

void member_forms(const Tensor& a, const Tensor& b, Tensor& out, double shared) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    float scale = 0.25f * i;
    Tensor first = a[i].add(b[i], scale);
    Tensor second = first.sub(a[i], i + 1);
    out[i] = add(second, b[i], shared);
  }
}
// CHECK-LABEL: void member_forms(
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& c, const auto& d, const auto& scale, const auto& e, const auto& shared) {
// CHECK-NEXT: auto first = c.add(d, scale);  // line 21
// CHECK-NEXT: auto second = first.sub(c, e);  // line 22
// CHECK-NEXT: return vb::add(second, d, shared);
// CHECK-NEXT: }, vb::at(a, i), vb::at(b, i), scale, i + 1, shared);  // lines 21-23

// Integer tensors with an integer per-example alpha.
void counts(const Tensor& totals, const Tensor& steps, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < totals.size(0); ++i) {
    int64_t k = steps[i][0].item<int64_t>();
    out[i] = totals[i].add(steps[i], k % 3 - 1);
  }
}
// CHECK-LABEL: void counts(
// CHECK: vb::at(out, i) = vb::at(totals, i).add(vb::at(steps, i), k % 3 - 1);

int main() {
  Tensor weights = arange(12).reshape({3, 4}).to(kFloat32) * 0.5;
  Tensor grads = ones({3, 4}) * 2;
  Tensor rates = tensor({0.1f, 0.01f, 1.0f});
  sgd_step(weights, grads, rates);
  Tensor a = arange(15).reshape({5, 3}).to(kFloat32) - 7;
  Tensor b = arange(15).reshape({5, 3}).to(kFloat32) * 0.5;
  Tensor out = zeros({5, 3});
  member_forms(a, b, out, -1.5);
  Tensor totals = arange(8, kInt64).reshape({4, 2});
  Tensor steps = tensor({5, -4, 7, 2}, kInt64).reshape({4, 1}).expand({4, 2}).contiguous();
  Tensor counted = zeros({4, 2}, kInt64);
  counts(totals, steps, counted);
  std::cout << weights << "\n" << out << "\n" << counted << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
