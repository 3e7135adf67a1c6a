// Conversions as C++ and LibTorch make them (a seventh hostile hunt of issue 31): an integer
// accumulator of floats adds in float, as `int + float` is float, converted back at every
// step (at 2^24, `s += 1.0f` leaves s as it is; the batched fold added in double); an
// element copied into an int slot by a kernel converts as copy_ does (it raised fill_'s
// overflow error for NaN); a bool tensor times a C++ `int` is int64, a Scalar's dtype (it
// was int32). The printed program's results are compared with the loop's as written.
#include <vmap/vmap.hpp>
#include <cmath>
#include <cstdint>
#include <iostream>
using namespace vmap;

int int_of_floats(const Tensor& x, int s) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) s += x[i].item<float>();
  return s;
}
// CHECK-LABEL: int int_of_floats(

int64_t long_of_products(const Tensor& x, const Tensor& y, int64_t s) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) s += x[i].item<float>() * y[j].item<float>();
  return s;
}
// CHECK-LABEL: int64_t long_of_products(

int int_of_row_sums(const Tensor& x, int s) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float row = 0;
    for (int64_t k = 0; k < x.size(1); ++k) row += x[i][k].item<float>();
    s -= row;
  }
  return s;
}
// CHECK-LABEL: int int_of_row_sums(

void copied_until_large(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t k = 0; k < x.size(1); ++k) {
      if (x[i][k].item<float>() > 100.0f) break;
      out[i][k] = x[i][k];
    }
}
// CHECK-LABEL: void copied_until_large(
// CHECK: vb::fused_scalar(

void doubled_flags(const Tensor& x, Tensor& out, Tensor& is_long) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const Tensor doubled = (x[i] > 0) * 2;
    out[i] = doubled.sum();
    is_long[i] = doubled.dtype() == kInt64;
  }
}
// CHECK-LABEL: void doubled_flags(

int main() {
  const int big = 1 << 24;
  std::cout << int_of_floats(ones({3}), big) << " " << int_of_floats(full({5}, 0.5f), 0) << " "
            << long_of_products(ones({3}), ones({3}), big) << " "
            << int_of_row_sums(full({4, 2}, 0.75f), big) << " "
            << int_of_row_sums(full({4, 2}, -0.25f), 3) << "\n";
  const Tensor x = tensor({{NAN, -1e20f, 2.9f}, {1.5f, 200.0f, 7.0f}});
  Tensor out = zeros({2, 3}, kInt32);
  copied_until_large(x, out);
  std::cout << out << "\n";
  Tensor sums = zeros({2}, kInt64), is_long = zeros({2}, kBool);
  doubled_flags(x, sums, is_long);
  std::cout << sums << is_long << "\n";
}

// CHECK: int main() {

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
