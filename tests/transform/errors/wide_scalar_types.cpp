// Per-example numbers the batched values cannot hold as C++ computes them: `long double`
// (64-bit mantissa: 2^60 + 1 is exact, in double it is not), `__int128`, and an enum (the
// batched code has no values of the enum's own type). A loop-invariant `long double` that a
// per-example value is converted to is refused as well.
#include <vmap/vmap.hpp>
#include <cstdint>
using namespace vmap;

enum Mode { Low = 1, High = 9 };

void wide(const Tensor& x, Tensor& out, long double scale) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    long double v = x[i].item<int64_t>();
// CHECK-DAG: {{.*}}wide_scalar_types.cpp:[[@LINE-1]]:5: error: per-example value stored in 'v' of type 'long double', which cannot be batched
    __int128 w = x[i].item<int64_t>();
// CHECK-DAG: {{.*}}wide_scalar_types.cpp:[[@LINE-1]]:5: error: per-example value stored in 'w' of type '__int128', which cannot be batched
    Mode m = x[i].item<int>() > 2 ? High : Low;
// CHECK-DAG: {{.*}}wide_scalar_types.cpp:[[@LINE-1]]:5: error: per-example value stored in 'm' of type 'Mode', which cannot be batched
    out[i][0] = static_cast<int64_t>(x[i].item<int64_t>() * scale);
// CHECK-DAG: {{.*}}wide_scalar_types.cpp:[[@LINE-1]]:38: error: a per-example value of type 'long double' is not supported in the body of a vmap loop
// CHECK-DAG: note: the batched numbers are bool, float, double and the integer types of 16 to 64 bits: give it one of these types
    out[i][1] = static_cast<int64_t>(v + w) + static_cast<int>(m);
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
