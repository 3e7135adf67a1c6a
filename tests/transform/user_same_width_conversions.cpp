// An unsigned per-example integer converted to the signed type of its width without a cast
// (`int s = u;`, `short t = w;`, a helper's `return u;` as int) is C++'s two's complement
// reading of its bits: 2^32 - 5 is -5, 40000 as short is -25536. The batched unsigned
// integers hold their exact value in int64, so the conversion is printed (vb::scalar_cast)
// as an explicit cast is; the old tool printed none (its differential prints 4294967291).
#include <vmap/vmap.hpp>
#include <cstdint>
#include <cstdio>
using namespace vmap;

int as_int(unsigned u) { return u; }

void same_width(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int v = x[i].item<int>();
    unsigned u = v;
    int s = u;
    uint16_t w = v;
    short t = w;
    out[i][0] = s;
    out[i][1] = t;
    out[i][2] = as_int(u * 2u);
  }
}
// CHECK-LABEL: static ::vmap::batched::Value _b_as_int(::vmap::batched::Value u) {
// CHECK: return vb::scalar_cast<int>(u);
// CHECK-LABEL: void same_width(
// CHECK: vb::Value s = vb::scalar_cast<int>(u);  // line 18
// CHECK: vb::Value t = vb::scalar_cast<short>(w);  // line 20

int main() {
  Tensor x = tensor({-5, 0, 7, 40000, -40000, 2147483647}).to(kInt);
  Tensor out = zeros({6, 3}, kLong);
  same_width(x, out);
  for (int64_t r = 0; r < out.size(0); ++r)
    std::printf("%lld %lld %lld\n", static_cast<long long>(out[r][0].item<int64_t>()),
                static_cast<long long>(out[r][1].item<int64_t>()),
                static_cast<long long>(out[r][2].item<int64_t>()));
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
