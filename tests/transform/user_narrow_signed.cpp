// Conversions to a signed integer type narrower than int (short, int16_t) keep the low 16
// bits, read as two's complement, as C++20 converts: an initialisation, an explicit cast, a
// helper's parameter and return, and `s = s + e` past 32767 wrap to negative values (an int32
// Value would keep 40000; the differential fails there). `s += e` is refused
// (errors/narrow_signed_update).
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
using namespace vmap;

short twice(short s) { return s * 2; }

void shorts(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int v = x[i].item<int>();
    short s = v;
    int16_t u = s + 30000;
    s = s + 20000;
    out[i][0] = s;
    out[i][1] = u;
    out[i][2] = x[i] * 0 + twice(v);  // in tensor code: the clone
    out[i][3] = static_cast<short>(v * 7);
    out[i][4] = (signed short)(v - 70000);
  }
}
// CHECK-LABEL: static ::vmap::batched::Value _b_twice(
// CHECK: return vb::scalar_cast<short>(s * 2);  // line 11
// CHECK-LABEL: void shorts(
// CHECK: vb::Value s = vb::scalar_cast<short>(v);  // line 17
// CHECK: vb::Value u = vb::scalar_cast<short>(s + 30000);  // line 18
// CHECK: s = vb::scalar_cast<short>(s + 20000);  // line 19
// CHECK: _b_twice(vb::scalar_cast<short>(v)));  // line 22
// Stored alone, the casts are scalar kernels: C++'s own conversions.
// CHECK: vb::at(out, i)[3] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int v) {
// CHECK-NEXT: return static_cast<short>(v * 7);
// CHECK-NEXT: }, v);  // line 23
// CHECK-NEXT: vb::at(out, i)[4] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int v) {
// CHECK-NEXT: return (signed short)(v - 70000);
// CHECK-NEXT: }, v);  // line 24

int main() {
  Tensor x = tensor({0, 1, -1, 12000, -12000, 32767, 40000, -40000}).to(kInt);
  Tensor out = zeros({8, 5}, kLong);
  shorts(x, out);
  std::cout << out << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
