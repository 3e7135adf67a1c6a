// Per-example C++ arithmetic with no control flow is a scalar kernel too (Note [Fused
// control flow] in transform/fuse_scalar.cpp): the stored value's C++ as written, run on
// SIMD lanes straight into the store's slot (Note [Scalar kernels over rows of examples] in
// rules/include/vmap/fused_scalar.hpp). Its operands are its leaves (induction variables,
// item reads, per-example locals); what is the same for every example stays one number.
#include <vmap/vmap.hpp>
#include <cmath>
#include <cstdint>
#include <iostream>
using namespace vmap;

// A mask as a cast, as `?:` and through an int local.
void masks(Tensor& cast, Tensor& chosen, Tensor& ints) {
#pragma vmap
  for (int64_t i = 0; i < cast.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < cast.size(1); ++j) {
      cast[i][j] = static_cast<float>(j >= i);
      chosen[i][j] = j >= i ? 1.5f : -0.5f;
      int on = j > i ? 1 : 0;
      ints[i][j] = on + i * 10;
    }
}
// CHECK-LABEL: void masks(
// CHECK: vb::at(cast, i)[j] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int64_t j, int64_t i) {
// CHECK-NEXT: return static_cast<float>(j >= i);
// CHECK-NEXT: }, j, i);  // line 18
// CHECK-NEXT: vb::at(chosen, i)[j] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int64_t j, int64_t i) {
// CHECK-NEXT: return j >= i ? 1.5f : -0.5f;
// CHECK-NEXT: }, j, i);  // line 19
// CHECK-NEXT: vb::at(ints, i)[j] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int64_t j, int64_t i) {
// CHECK-NEXT: int on = j > i ? 1 : 0;  // line 20
// CHECK-NEXT: return on + i * 10;
// CHECK-NEXT: }, j, i);  // lines 20-21

// Item reads and <cmath>; a factor the same for every example is one number, computed
// once; C++'s integer division and remainder of negatives.
void arithmetic(const Tensor& x, const Tensor& n, float scale, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float v = x[i].item<float>();
    out[i][0] = std::sqrt(std::fabs(v)) * (scale * 2.0f) + v;
    out[i][1] = n[i].item<int>() / 3 + n[i].item<int>() % 3;
    out[i][2] = v > 0.0f && n[i].item<int>() != 0;
  }
}
// CHECK-LABEL: void arithmetic(
// CHECK: vb::Value v = vb::at(x, i).item<float>();  // line 41
// CHECK-NEXT: vb::at(out, i)[0] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](float v, float a) {
// CHECK-NEXT: return std::sqrt(std::fabs(v)) * a + v;
// CHECK-NEXT: }, v, (scale * 2.0f));  // line 42
// CHECK-NEXT: vb::at(out, i)[1] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int a) {
// CHECK-NEXT: return a / 3 + a % 3;
// CHECK-NEXT: }, vb::at(n, i).item<int>());  // line 43
// `&&` is C++'s: the element is read only where v > 0.
// CHECK-NEXT: vb::at(out, i)[2] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](float v, vb::Elements n, int64_t i) {
// CHECK-NEXT: return v > 0.0f && n[i].item<int>() != 0;
// CHECK-NEXT: }, v, n, i);  // line 44

// A template whose kernel is the same text for every argument: the C++ compiler gives T
// its meaning in each specialization (float rounds, int64_t truncates).
template <class T>
void as_type(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    T v = x[i].sum().item<float>() + 1;
    out[i] = v / 2;
  }
}
// CHECK-LABEL: void as_type(
// CHECK: vb::at(out, i) = vb::fused_scalar([](float a) {
// CHECK-NEXT: T v = a + 1;  // line 66
// CHECK-NEXT: return v / 2;
// CHECK-NEXT: }, vb::at(x, i).sum().template item<float>());  // lines 66-67

// A value that is an operand as it is computes nothing: no kernel.
void copies(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i].item<float>();
}
// CHECK-LABEL: void copies(
// CHECK-NOT: fused_scalar
// CHECK: vb::at(out, i) = vb::at(x, i).item<float>();  // line 80

int main() {
  Tensor cast = zeros({4, 5}), chosen = zeros({4, 5}, kDouble), ints = zeros({4, 5}, kInt32);
  masks(cast, chosen, ints);
  std::cout << cast << chosen << ints;
  // A transposed (strided) destination.
  Tensor strided = zeros({5, 4}).t();
  masks(strided, chosen, ints);
  std::cout << strided;

  Tensor x = tensor({-4.0f, 2.25f, 0.0f, 9.0f, -0.5f});
  Tensor n = tensor({-7, 7, 0, 5, -3}).to(kInt);
  Tensor out = zeros({5, 3});
  arithmetic(x, n, 0.5f, out);
  std::cout << out;

  Tensor rows = tensor({0.3f, 0.4f, 2.6f, -1.2f, -3.7f, 0.0f}).reshape({3, 2});
  Tensor floats = zeros({3}), longs = zeros({3}, kInt64);
  as_type<float>(rows, floats);
  as_type<int64_t>(rows, longs);
  std::cout << floats << longs;

  Tensor copied = zeros({5});
  copies(x, copied);
  std::cout << copied << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
