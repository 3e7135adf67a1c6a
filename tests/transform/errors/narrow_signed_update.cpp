// `+=`, `-=`, `*=`, `/=`, `++` and `--` of a per-example short: C++ computes them in int and
// keeps the low 16 bits of the result (32767 + 1 is -32768), the batched integers keep the
// whole value. `s = s + e` is batched as C++ computes it (golden user_narrow_signed).
#include <vmap/vmap.hpp>
#include <cstdint>
using namespace vmap;

void steps(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    short s = x[i].item<int>();
    s += 20000;
// CHECK: {{.*}}narrow_signed_update.cpp:[[@LINE-1]]:5: error: '+=' on a per-example 'short' is not supported in the body of a vmap loop
// CHECK: note: C++ computes it in 'int' and keeps the low bits of the result, the batched integers keep the whole value: write 's = s + e'
    int16_t t = s;
    t++;
// CHECK: {{.*}}narrow_signed_update.cpp:[[@LINE-1]]:5: error: '++' on a per-example 'int16_t' is not supported in the body of a vmap loop
    t /= -1;
// CHECK: {{.*}}narrow_signed_update.cpp:[[@LINE-1]]:5: error: '/=' on a per-example 'int16_t' is not supported in the body of a vmap loop
    out[i] = s + t;
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
