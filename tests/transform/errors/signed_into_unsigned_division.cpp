// `/` and `%` on unsigned integers narrower than 64 bits whose other operand is a signed
// per-example value: C++ converts the signed one to unsigned (-7 becomes 2^32 - 7), which
// the batched (signed) integers cannot reproduce. A non-negative constant is fine. (On
// size_t operands the unsigned forms read the signed one's bits as C++ converts them.)
// A `/=` or `%=` in size_t arithmetic into another type would divide as int64 (`m /= d`
// of a size_t variable m is batched as C++ divides).
#include <vmap/vmap.hpp>
#include <cstddef>
#include <cstdint>
using namespace vmap;

void buckets(const Tensor& x, Tensor& out, uint32_t n) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int32_t d = x[i].item<int32_t>() - 7;
    out[i][0] = static_cast<int64_t>(d % n);
// CHECK: {{.*}}signed_into_unsigned_division.cpp:[[@LINE-1]]:38: error: a signed per-example operand of an unsigned '%' is not supported in the body of a vmap loop
    std::size_t m = x[i].item<int64_t>();
    uint32_t h = static_cast<uint32_t>(m);
    h /= m;
// CHECK: {{.*}}signed_into_unsigned_division.cpp:[[@LINE-1]]:5: error: '/=' on a per-example unsigned integer is not supported in the body of a vmap loop
// CHECK: note: C++ wraps an unsigned integer around, the batched integers (int64) do not: write 'u = u + e' (or 'u = u / e')
    out[i][1] = static_cast<int64_t>(m % 3 + h);
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
