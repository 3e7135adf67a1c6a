// A user's names that the rewrite also generates (`vb`, `vmap`, `_b_level0`, `_b_where0`,
// `_b_args`, `batched`, `i`) as globals, parameters, locals before the loop and
// locals of the body: the rewrite picks fresh names where the function uses them,
// and the rewritten program builds and computes what the loop computes.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
using namespace vmap;

const float vb = 0.5f;
const int64_t _b_level0 = 1;
const int64_t i = 7;
// A global `batched` would be ambiguous with vmap::batched under `using namespace
// vmap;` in the rewritten code (README: what it refuses); one in a namespace is not.
namespace app {
const float batched = 3.0f;
struct vmap {}; // hides ::vmap in app: the rewrite names ::vmap::batched
}

// `_b_twice` names `twice`'s clone; two statements each keep their clones (fuse_helpers.cpp).
Tensor _b_twice(const Tensor& t) { Tensor u = t * 2; return u; }
Tensor twice(const Tensor& t) { Tensor u = t + t; return u; }

void parameters(const Tensor& x, float vb, int64_t _b_level0, float batched, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * vb + _b_level0 + batched;
}

void locals_before(const Tensor& x, Tensor& out) {
  const float vb = 0.25f;
  const int64_t _b_level0 = 2;
  const float batched = -1.0f;
  const int64_t _b_where0 = 4;
  int64_t i = 0;
#pragma vmap
  for (int64_t k = 0; k < x.size(0) - _b_level0 + 2; ++k) {
    if (x[k].sum().item<float>() > vb)
      out[k] = x[k] * vb + batched + _b_where0;
    else
      out[k] = x[k] - i;
  }
}

void body_locals(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor vb = x[i] * 2;
    Tensor _b_level0 = vb + 1;
    Tensor batched = _b_level0.sin();
    Tensor _b_args = batched * batched;
    out[i] = _b_args + twice(x[i]);
  }
}

namespace app {
void globals(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t k = 0; k < x.size(0); ++k)
    out[k] = x[k] * vb + _b_level0 + batched + i + _b_twice(x[k]);
}
} // namespace app

// No user name is generated here: the fixed names stay.
void plain(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t k = 0; k < x.size(0); ++k)
    out[k] = x[k] * 3;
}

int main() {
  Tensor x = (arange(12).reshape({4, 3}).to(kFloat) - 5.0) * 0.3;
  Tensor a = zeros({4, 3}), b = zeros({4, 3}), c = zeros({4, 3}), d = zeros({4, 3}),
         e = zeros({4, 3});
  parameters(x, 1.5f, 2, -0.5f, a);
  locals_before(x, b);
  body_locals(x, c);
  app::globals(x, d);
  plain(x, e);
  std::cout << a << "\n" << b << "\n" << c << "\n" << d << "\n" << e << "\n";
}

// CHECK: static ::vmap::batched::Value _b__b_twice(const ::vmap::batched::Value& t) {
// CHECK: static ::vmap::batched::Value _b_twice_1(const ::vmap::batched::Value& t) {
// CHECK-LABEL: void parameters(
// CHECK: namespace vb_1 = ::vmap::batched;
// CHECK-NEXT: vb_1::Level _b_level0_1(0, x.size(0));  // line 26
// CHECK-NEXT: const vb_1::Value i = _b_level0_1.index();
// CHECK-NEXT: vb_1::at(out, i) = vb_1::fused(vb_1::DeviceCode{{[{]}}"{{.*}}", "vb_1"}, [](const auto& a, const auto& b, const auto& _b_level0, const auto& batched) { return a * b + _b_level0 + batched; }, vb_1::at(x, i), vb, _b_level0, batched);  // line 27
// CHECK-LABEL: void locals_before(
// CHECK: namespace vb_1 = ::vmap::batched;
// CHECK-NEXT: vb_1::Level _b_level0_1(0, x.size(0) - _b_level0 + 2);  // line 37
// CHECK-NEXT: const vb_1::Value k = _b_level0_1.index();
// CHECK-NEXT: { vb_1::Where _b_where0_1(vb_1::at(x, k).sum().item<float>() > vb);  // line 38
// CHECK-NEXT: vb_1::at(out, k) = vb_1::fused(vb_1::DeviceCode{{[{]}}"{{.*}}", "vb_1"}, [](const auto& a, const auto& b, const auto& batched, const auto& _b_where0) { return a * b + batched + _b_where0; }, vb_1::at(x, k), vb, batched, _b_where0);  // line 39
// CHECK-NEXT: _b_where0_1.flip();
// CHECK-NEXT: vb_1::at(out, k) = vb_1::at(x, k) - i;  // line 41
// CHECK-LABEL: void body_locals(
// CHECK: namespace vb_1 = ::vmap::batched;
// CHECK-NEXT: vb_1::Level _b_level0_1(0, x.size(0));  // line 47
// CHECK-NEXT: const vb_1::Value i = _b_level0_1.index();
// CHECK-NEXT: vb_1::at(out, i) = vb_1::fused(vb_1::DeviceCode{{[{]}}"{{.*}}", "vb_1"}, [](const auto& a, const auto& b) {
// CHECK-NEXT: auto vb = a * 2;  // line 48
// CHECK-NEXT: auto _b_level0 = vb + 1;  // line 49
// CHECK-NEXT: auto batched = _b_level0.sin();  // line 50
// CHECK-NEXT: auto _b_args = batched * batched;  // line 51
// CHECK-NEXT: return _b_args + b;
// CHECK-NEXT: }, vb_1::at(x, i), _b_twice_1(vb_1::at(x, i)));  // lines 48-52
// CHECK-LABEL: void globals(
// CHECK: if (::vmap::batched::unsafe_overlap(out, x)) {
// CHECK: namespace vb_1 = ::vmap::batched;
// CHECK: vb_1::at(out, k) = vb_1::fused(vb_1::DeviceCode{{[{]}}"{{.*}}", "vb_1"}, [](const auto& a, const auto& b, const auto& _b_level0, const auto& batched, const auto& i, const auto& c) { return a * b + _b_level0 + batched + i + c; }, vb_1::at(x, k), vb, _b_level0, batched, i, _b__b_twice(vb_1::at(x, k)));  // line 60
// CHECK-LABEL: void plain(
// CHECK: namespace vb = ::vmap::batched;
// CHECK-NEXT: vb::Level _b_level0(0, x.size(0));  // line 67
// CHECK-NEXT: const vb::Value k = _b_level0.index();

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
