// `.item<T>()` converts checked (a NaN or a value out of T's range throws, as LibTorch's
// does): an example that does not reach it as written (an `if` it skips, the arm of `?:` it
// does not take, the right of `&&` it does not evaluate) must not make the batched loop
// throw, and an example that does reach it must, also for the types held wider (short,
// uint16_t). The old tool checked every example's item (the rewrite threw on the NaN that
// the loop as written never converts) and none against short's range.
#include <vmap/vmap.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
using namespace vmap;

void masked_items(const Tensor& ok, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < y.size(0); ++i) {
    int r = -1;
    if (ok[i].item<int>() > 0)
      r = y[i].item<int>();
    out[i][0] = r;
    out[i][1] = ok[i].item<int>() > 0 ? y[i].item<int64_t>() : int64_t{-5};
    out[i][2] = ok[i].item<int>() > 0 && y[i].item<int>() > 3;
  }
}
// The `if`, the `?:` and the `&&` are scalar kernels (each example runs its own branch,
// C++'s `&&` reads the element only where the left is true; int64_t{-5} is a constant,
// written in the kernel, where `?:` runs one arm).
// CHECK-LABEL: void masked_items(
// CHECK: r = y[i].item<int>();
// CHECK: return a > 0 ? y[i].item<int64_t>() : int64_t{-5};{{$}}
// CHECK: vb::at(out, i)[2] = vb::fused_scalar(vb::DeviceCode{{[{]}}"{{.*}}"}, [](int a, vb::Elements y, int64_t i) {
// CHECK-NEXT: return a > 0 && y[i].item<int>() > 3;
// CHECK-NEXT: }, vb::at(ok, i).item<int>(), y, i);  // line 21

void narrow_items(const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < y.size(0); ++i) {
    short s = y[i].item<short>();
    uint16_t u = y[i].item<uint16_t>();
    out[i][0] = s;
    out[i][1] = u;
  }
}
// CHECK-LABEL: void narrow_items(
// CHECK: vb::Value s = vb::at(y, i).item<short>();
// CHECK: vb::Value u = vb::at(y, i).item<uint16_t>();

static void print(const char* name, const Tensor& t) {
  std::printf("%s", name);
  const Tensor v = t.contiguous().reshape({-1});
  for (int64_t e = 0; e < v.numel(); ++e)
    std::printf(" %lld", static_cast<long long>(v[e].item<int64_t>()));
  std::printf("\n");
}

int main() {
  const float nan = std::nanf("");
  Tensor y = tensor({2.5f, nan, 1e20f, 3.5f, 7.0f});
  Tensor ok = tensor({1, 0, 0, 1, 1}).to(kInt);
  Tensor out = zeros({5, 3}, kLong);
  masked_items(ok, y, out);
  print("masked", out);
  for (int64_t big : {int64_t{40000}, int64_t{70000}, int64_t{-3}}) {
    Tensor narrow = zeros({3, 2}, kLong);
    try {
      narrow_items(tensor({int64_t{1}, big, int64_t{2}}), narrow);
      print("narrow", narrow);
    } catch (const Error&) {
      std::printf("narrow %lld threw\n", static_cast<long long>(big));
    }
  }
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
