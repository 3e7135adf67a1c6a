// Calls of function templates of this file: each specialization the loop calls gets its own
// clone, with the template parameters bound at the top of its body (Note [Clones of function
// templates] in transform/emit.cpp).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

template <class T>
Tensor scaled(const Tensor& x, T factor) { return x * static_cast<T>(factor); }  // names T: a clone

template <class T>
T halved_square(T v) {
  T two = 2;
  return v * v / two;
}

template <int N, class V>
V power_sum(const V& x) {
  V acc = zeros_like(x);
  for (int k = 0; k < N; ++k) acc = acc + x.pow(k + 1);
  return acc;
}

template <int64_t Bias>
int64_t shifted(int64_t v) { return v + Bias; }

void features(const Tensor& x, const Tensor& counts, Tensor& out, Tensor& energy,
              Tensor& moments, Tensor& shifted_counts) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = scaled(x[i], 2.0f) + scaled(x[i], 0.5);
    float total = x[i].sum().item<float>();
    energy[i] = halved_square(total) + halved_square(int64_t(3));
    moments[i] = power_sum<3>(x[i]);
    shifted_counts[i] = shifted<-2>(counts[i].item<int64_t>()) * shifted<2>(i);
  }
}

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) / 4.0;
  Tensor counts = tensor({5, 0, -3, 7}).to(kLong);
  Tensor out = zeros({4, 3}), energy = zeros({4}), moments = zeros({4, 3});
  Tensor shifted_counts = zeros({4}, kLong);
  features(x, counts, out, energy, moments, shifted_counts);
  std::cout << out << "\n" << energy << "\n" << moments << "\n" << shifted_counts << "\n";
}

// CHECK: // clang-vmap: batched clone of 'scaled<float>' (line 9)
// CHECK-NEXT: static ::vmap::batched::Value _b_scaled_float(const ::vmap::batched::Value& x, float factor) {
// CHECK: using T {{\[\[}}maybe_unused{{\]\]}} = float;
// CHECK-NEXT: return x * static_cast<T>(factor);  // line 9
// CHECK: // clang-vmap: batched clone of 'scaled<double>' (line 9)
// CHECK-NEXT: static ::vmap::batched::Value _b_scaled_double(const ::vmap::batched::Value& x, double factor) {
// CHECK: using T {{\[\[}}maybe_unused{{\]\]}} = double;
// CHECK: // clang-vmap: batched clone of 'halved_square<float>' (line 12)
// CHECK-NEXT: static ::vmap::batched::Value _b_halved_square_float(::vmap::batched::Value v) {
// CHECK: using T {{\[\[}}maybe_unused{{\]\]}} = float;
// CHECK-NEXT: T two = 2;  // line 13
// CHECK-NEXT: return v * v / two;  // line 14
// CHECK: // clang-vmap: batched clone of 'power_sum<3, vmap::Tensor>' (line 18)
// CHECK-NEXT: static ::vmap::batched::Value _b_power_sum_3_vmap_Tensor(const ::vmap::batched::Value& x) {
// CHECK: {{\[\[}}maybe_unused{{\]\]}} constexpr int N = 3;
// CHECK-NEXT: using V {{\[\[}}maybe_unused{{\]\]}} = vmap::Tensor;
// CHECK-NEXT: vb::Value acc = vb::zeros_like(x);  // line 19
// CHECK: acc = acc + x.pow(k + 1);  // line 20
// CHECK: // clang-vmap: batched clone of 'shifted<-2>' (line 25)
// CHECK-NEXT: static ::vmap::batched::Value _b_shifted_neg2(::vmap::batched::Value v) {
// CHECK: {{\[\[}}maybe_unused{{\]\]}} constexpr int64_t Bias = -2;
// CHECK: // clang-vmap: batched clone of 'shifted<2>' (line 25)
// CHECK-NEXT: static ::vmap::batched::Value _b_shifted_2(::vmap::batched::Value v) {
// CHECK-LABEL: void features(
// CHECK: vb::at(out, i) = _b_scaled_float(vb::at(x, i), 2.0f) + _b_scaled_double(vb::at(x, i), 0.5);  // line 31
// CHECK: vb::at(energy, i) = _b_halved_square_float(total) + halved_square(int64_t(3));  // line 33
// CHECK: vb::at(moments, i) = _b_power_sum_3_vmap_Tensor(vb::at(x, i));  // line 34
// CHECK: vb::at(shifted_counts, i) = _b_shifted_neg2(vb::at(counts, i).item<int64_t>()) * _b_shifted_2(i);  // line 35

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
