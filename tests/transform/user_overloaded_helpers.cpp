// Overloaded helpers of the same name (`int h(int)`, `double h(double)`) each get a clone of
// their own, named by their parameter types: the old tool printed two `_b_h(vb::Value)`
// clones, a redefinition, so the rewrite did not compile. Integer and floating halves differ
// (-7 / 2 is -3, -7.0 / 2 is -3.5), so a call bound to the wrong overload prints other values.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <cstdio>
using namespace vmap;

int h(int a) { return a / 2; }
double h(double a) { return a / 2; }
int64_t h(int64_t a, int64_t b) { return a % b; }

void halves(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int v = x[i].item<int>();
    double f = v;
    out[i][0] = x[i] * 0 + h(v);  // in tensor code: the clones
    out[i][1] = x[i] * 0 + h(f);
    out[i][2] = x[i] * 0 + h(int64_t{v}, int64_t{-4});
  }
}
// CHECK-LABEL: static ::vmap::batched::Value _b_h_int(::vmap::batched::Value a) {
// CHECK-LABEL: static ::vmap::batched::Value _b_h_double(::vmap::batched::Value a) {
// CHECK-LABEL: static ::vmap::batched::Value _b_h_long_long(::vmap::batched::Value a, int64_t b) {
// CHECK-LABEL: void halves(
// CHECK: vb::at(x, i), _b_h_int(v));  // line 19
// CHECK: vb::at(x, i), _b_h_double(f));  // line 20
// CHECK: vb::at(x, i), _b_h_long_long(vb::scalar_cast<int64_t>({v}), int64_t{-4}));  // line 21

int main() {
  Tensor x = tensor({-7, -3, 0, 1, 5}).to(kInt);
  Tensor out = zeros({5, 3}, kDouble);
  halves(x, out);
  for (int64_t r = 0; r < out.size(0); ++r)
    std::printf("%g %g %g\n", out[r][0].item<double>(), out[r][1].item<double>(),
                out[r][2].item<double>());
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
