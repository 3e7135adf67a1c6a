// C++ `/` and `%` (and `/=`, `%=`) on per-example integers keep C++ meaning: division
// truncates toward zero, the remainder takes the sign of the dividend; int, int64_t,
// size_t, mixed with each other, with floats and with loop-invariant divisors.
#include <vmap/vmap.hpp>
#include <cstddef>
#include <cstdint>
#include <iostream>
using namespace vmap;

// A flat index split into row and column (negative flats included).
void split(const Tensor& flat_ids, Tensor& rows, Tensor& cols, int64_t width) {
#pragma vmap
  for (int64_t i = 0; i < flat_ids.size(0); ++i) {
    int64_t flat = flat_ids[i].item<int64_t>();
    rows[i] = flat / width;
    cols[i] = flat % width;
  }
}
// CHECK-LABEL: void split(
// CHECK: vb::at(rows, i) = flat / width;  // line 15
// CHECK-NEXT: vb::at(cols, i) = flat % width;  // line 16
// CHECK: static ::vmap::batched::Value _b_wrap(::vmap::batched::Value k, int n) {
// CHECK-NEXT: namespace vb = ::vmap::batched;
// CHECK-NEXT: return k % n;  // line 26

int wrap(int k, int n) { return k % n; }

void compound(const Tensor& values, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < values.size(0); ++i) {
    int k = values[i].item<int>();
    int d = k;
    d /= 3;
    k %= -4;
    int64_t wide = k * 1000000000LL;
    wide %= 7;
    float ratio = d / 2.0f;  // float division of an int
    int mixed = d / static_cast<int>(i + 1) + wrap(k, 3);
    out[i][0] = d;
    out[i][1] = k;
    out[i][2] = wide;
    out[i][3] = ratio;
    out[i][4] = mixed;
  }
}
// CHECK-LABEL: void compound(
// CHECK: d /= 3;  // line 33
// CHECK-NEXT: k %= -4;  // line 34
// CHECK: wide %= 7;  // line 36
// CHECK-NEXT: vb::Value ratio = vb::scalar_cast<float>(d) / 2.0f;  // line 37
// CHECK-NEXT: vb::Value mixed = d / vb::scalar_cast<int>(i + 1) + _b_wrap(k, 3);  // line 38

void unsigned_sizes(const Tensor& counts, Tensor& out, std::size_t group) {
#pragma vmap
  for (int64_t i = 0; i < counts.size(0); ++i) {
    std::size_t n = counts[i].item<int64_t>();
    std::size_t groups = n / group;
    std::size_t rest = n % group;
    rest %= 3;
    n /= 2u;
    out[i][0] = static_cast<int64_t>(groups);
    out[i][1] = static_cast<int64_t>(rest);
    out[i][2] = static_cast<int64_t>(n % 5);
  }
}
// CHECK-LABEL: void unsigned_sizes(
// CHECK: vb::Value groups = vb::unsigned_divide(n, group);  // line 57
// CHECK-NEXT: vb::Value rest = vb::unsigned_remainder(n, group);  // line 58
// CHECK-NEXT: rest = vb::unsigned_remainder(rest, 3);  // line 59
// CHECK-NEXT: n = vb::unsigned_divide(n, 2u);  // line 60

int main() {
  Tensor flat_ids = arange(-11, 12, 2, kInt64);  // -11 .. 11
  Tensor rows = zeros({flat_ids.size(0)}, kInt64), cols = zeros({flat_ids.size(0)}, kInt64);
  split(flat_ids, rows, cols, 4);
  split(flat_ids, rows, cols, -3);  // a negative divisor
  Tensor values = arange(-9, 10, 1, kInt32);
  Tensor out = zeros({values.size(0), 5}, kFloat64);
  compound(values, out);
  Tensor counts = arange(0, 40, 3, kInt64);
  Tensor sizes = zeros({counts.size(0), 3}, kInt64);
  unsigned_sizes(counts, sizes, 4);
  std::cout << rows << "\n" << cols << "\n" << out << "\n" << sizes << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
