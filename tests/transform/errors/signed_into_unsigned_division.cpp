// `/` and `%` on unsigned integers whose other operand is a signed per-example
// value: C++ converts the signed one to unsigned (-7 becomes 2^64 - 7), which the
// batched (signed) integers cannot reproduce. A non-negative constant is fine.
#include <vmap/vmap.hpp>
#include <cstddef>
#include <cstdint>
using namespace vmap;

void buckets(const Tensor& x, Tensor& out, std::size_t n) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t d = x[i].item<int64_t>() - 7;
    out[i][0] = static_cast<int64_t>(d % n);
// CHECK: {{.*}}signed_into_unsigned_division.cpp:[[@LINE-1]]:38: error: a signed per-example operand of an unsigned '%' is not supported in the body of a vmap loop
    std::size_t m = x[i].item<int64_t>();
    m /= d;
// CHECK: {{.*}}signed_into_unsigned_division.cpp:[[@LINE-1]]:10: error: a signed per-example operand of an unsigned '/=' is not supported in the body of a vmap loop
    out[i][1] = static_cast<int64_t>(m % 3);
  }
}
