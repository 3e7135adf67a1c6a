// Per-example C++ the batched layer has no op for (bit operators on integers, <cmath> and
// <algorithm> functions of numbers beyond the op table's) runs in the scalar kernel, as the
// compiler compiles it: std::round rounds halves away from zero (the tensor op rounds them
// to even), `>>` of a negative int is arithmetic, std::clamp and std::isnan mean what they
// mean in C++.
#include <vmap/vmap.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
using namespace vmap;

float quarter(float v) { return std::round(v * 4) / 4; }

void rounded(const Tensor& x, Tensor& halves, Tensor& quarters) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float v = x[i].item<float>();
    halves[i] = std::round(v);
    quarters[i] = quarter(v);
  }
}
// CHECK-LABEL: void rounded(
// CHECK: vb::at(halves, i) = vb::fused_scalar([](float v) {
// CHECK: return std::round(v);
// CHECK: vb::at(quarters, i) = vb::fused_scalar([](float v) {
// CHECK: return quarter(v);

void mixed_bits(const Tensor& k, Tensor& out, Tensor& ones) {
#pragma vmap
  for (int64_t i = 0; i < k.size(0); ++i) {
    int64_t h = k[i].item<int64_t>();
    out[i] = (h >> 3) ^ (h << 2) ^ (~h & 7);
    int bits = 0;
    for (int64_t m = h & 0xffff; m != 0; m >>= 1) bits += m & 1;
    ones[i] = bits;
  }
}
// CHECK-LABEL: void mixed_bits(
// CHECK: return (h >> 3) ^ (h << 2) ^ (~h & 7);
// CHECK: for (int64_t m = h & 0xffff; m != 0; m >>= 1) bits += m & 1;

void clamped(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    double a = x[i].item<double>();
    double b = y[i].item<double>();
    double r = std::isnan(a) ? 0.0 : std::copysign(std::hypot(a, b), a);
    out[i] = std::clamp(r, -1.5, 1.5);
  }
}
// CHECK-LABEL: void clamped(
// CHECK: double r = std::isnan(a) ? 0.0 : std::copysign(std::hypot(a, b), a);
// CHECK: return std::clamp(r, -1.5, 1.5);

// Compound bit operators on a local, and a number bound to std::clamp's const reference.
void hashed(const Tensor& k, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < k.size(0); ++i) {
    int a = k[i].item<int>();
    a ^= a << 3;
    a &= 0x7fff;
    out[i] = std::clamp(a % 100, 10, 90);
  }
}
// CHECK-LABEL: void hashed(
// CHECK: a ^= a << 3;  // line 60
// CHECK: return std::clamp(a % 100, 10, 90);

int main() {
  Tensor x = arange(24).to(kFloat) * 0.25 - 3;  // halves and quarters
  Tensor halves = zeros({24}), quarters = zeros({24});
  rounded(x * 1.1, halves, quarters);
  rounded(x, halves, quarters);
  std::cout << halves << "\n" << quarters << "\n";
  Tensor k = arange(24).to(kInt64) * 977 - 9000;
  Tensor out = zeros({24}, kInt64);
  Tensor ones = zeros({24}, kInt32);
  mixed_bits(k, out, ones);
  std::cout << out << "\n" << ones << "\n";
  Tensor a = (arange(24).to(kDouble) * 0.7).sin() * 2;
  a[5] = std::nan("");
  Tensor b = (arange(24).to(kDouble) * 0.3).cos();
  Tensor r = zeros({24}, kDouble);
  clamped(a, b, r);
  std::cout << r << "\n";
  Tensor hashes = zeros({24}, kInt32);
  hashed(arange(24).to(kInt32) * 1234 - 9000, hashes);
  std::cout << hashes << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
