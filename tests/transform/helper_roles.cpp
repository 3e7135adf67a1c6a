// A helper called from vmap loops in several roles (a per-example argument at one call, a
// loop-invariant one at another) gets one batched clone per role: the first role the file
// meets keeps the plain clone name, each other is named by its per-example parameters
// (Note [Clones in several roles] in transform/emit.cpp). Here a helper in two roles in one
// loop and across two loops, and a function template's specialization in two roles. The
// tool used to refuse this as "two specializations of a class template".
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// The q-quantile of an ascending 1-d tensor, interpolating between neighbours.
Tensor quantile_of_sorted(const Tensor& v, float q) {
  float pos = q * static_cast<float>(v.size(0) - 1);
  int64_t lo = static_cast<int64_t>(pos);
  int64_t hi = lo + 1 < v.size(0) ? lo + 1 : lo;
  float frac = pos - static_cast<float>(lo);
  return v[lo] * (1.0f - frac) + v[hi] * frac;
}
// CHECK: // clang-vmap: batched clone of 'quantile_of_sorted' (line 12){{$}}
// CHECK-NEXT: static ::vmap::batched::Value _b_quantile_of_sorted(const ::vmap::batched::Value& v, ::vmap::batched::Value q) {
// CHECK: vb::Value lo = vb::scalar_cast<int64_t>(pos);  // line 14
// CHECK: // clang-vmap: batched clone of 'quantile_of_sorted' (line 12) for calls with per-example 'v' only
// CHECK-NEXT: static ::vmap::batched::Value _b_quantile_of_sorted_per_example_v(const ::vmap::batched::Value& v, float q) {
// CHECK: int64_t lo = static_cast<int64_t>(pos);  // line 14

template <class T>
Tensor scaled(const Tensor& x, T factor) { return x * static_cast<T>(factor) + factor; }  // names T: a clone
// CHECK: // clang-vmap: batched clone of 'scaled<float>' (line 27){{$}}
// CHECK-NEXT: static ::vmap::batched::Value _b_scaled_float(const ::vmap::batched::Value& x, ::vmap::batched::Value factor) {
// CHECK: // clang-vmap: batched clone of 'scaled<float>' (line 27) for calls with per-example 'x' only
// CHECK-NEXT: static ::vmap::batched::Value _b_scaled_float_per_example_x(const ::vmap::batched::Value& x, float factor) {

void spreads(const Tensor& sorted, const Tensor& qs, Tensor& at_q, Tensor& iqr,
             Tensor& mixed) {
#pragma vmap
  for (int64_t i = 0; i < sorted.size(0); ++i) {
    float q = qs[i].item<float>();
    at_q[i] = quantile_of_sorted(sorted[i], q) - quantile_of_sorted(sorted[i], 0.5f);
    mixed[i] = scaled(sorted[i], q).sum() + scaled(sorted[i], 2.0f).sum();
  }
// CHECK: vb::at(at_q, i) = _b_quantile_of_sorted(vb::at(sorted, i), q) - _b_quantile_of_sorted_per_example_v(vb::at(sorted, i), 0.5f);  // line 38
// CHECK: vb::at(mixed, i) = _b_scaled_float(vb::at(sorted, i), q).sum() + _b_scaled_float_per_example_x(vb::at(sorted, i), 2.0f).sum();  // line 39
#pragma vmap
  for (int64_t i = 0; i < sorted.size(0); ++i)
    iqr[i] = quantile_of_sorted(sorted[i], 0.75f) - quantile_of_sorted(sorted[i], 0.25f);
// CHECK: vb::at(iqr, i) = _b_quantile_of_sorted_per_example_v(vb::at(sorted, i), 0.75f) - _b_quantile_of_sorted_per_example_v(vb::at(sorted, i), 0.25f);  // line 45
}

int main() {
  // Rows of squares, so each quantile interpolates between different gaps.
  Tensor sorted = (arange(20).reshape({4, 5}).to(kFloat) * 0.5).pow(2);
  Tensor qs = tensor({0.1f, 0.9f, 0.5f, 0.3f});
  Tensor at_q = zeros({4}), iqr = zeros({4}), mixed = zeros({4});
  spreads(sorted, qs, at_q, iqr, mixed);
  std::cout << at_q << "\n" << iqr << "\n" << mixed << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
