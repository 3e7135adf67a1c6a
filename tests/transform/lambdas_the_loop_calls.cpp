// Lambdas stored in local variables and called in the loop, as helper functions are: a
// Tensor one of ops only is computed inside the kernel, one that captures is a batched
// clone beside it (a lambda of the same captures), a scalar one (reading numbers it
// captures) runs as written in a scalar kernel, which captures it.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void shifted_squares(const Tensor& x, Tensor& out) {
  auto sq = [](const Tensor& t) { return t * t + 1.0; };
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = sq(x[i]) * 0.5;
}
// CHECK-LABEL: void shifted_squares(
// CHECK: vb::at(out, i) = vb::fused([](const auto& a) { return [](const auto& t) { return t * t + 1.0; }(a) * 0.5; }, vb::at(x, i));  // line 12

void layer(const Tensor& x, const Tensor& W, const Tensor& b, Tensor& out) {
  auto dense = [&](const Tensor& v) { return relu(matmul(W, v) + b); };
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = dense(x[i]);
}
// CHECK-LABEL: void layer(
// CHECK: auto dense = [&](const Tensor& v) { return relu(matmul(W, v) + b); };
// CHECK-NEXT: // clang-vmap: batched clone of 'dense' (line 18)
// CHECK-NEXT: auto _b_dense = [&](const ::vmap::batched::Value& v) -> ::vmap::batched::Value {
// CHECK: return vb::relu(vb::matmul(W, v) + b);  // line 18
// CHECK-NEXT: };
// CHECK: vb::at(out, i) = _b_dense(vb::at(x, i));  // line 20

void positive_cubes(const Tensor& x, Tensor& out) {
  auto cube_positive = [](float v) {
    if (v < 0) return 0.0f;
    float r = 1;
    for (int k = 0; k < 3; ++k) r *= v;
    return r;
  };
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = cube_positive(x[i].item<float>());
}
// CHECK-LABEL: void positive_cubes(
// CHECK: vb::at(out, i) = vb::fused_scalar([&cube_positive](float a) {
// CHECK: return cube_positive(a);
// CHECK-NOT: _b_cube_positive

// Captures by value and through `this`; a generic lambda, once per type it is called with.
struct Scaled {
  float scale = 3.0f;
  void apply(const Tensor& x, float shift, Tensor& out, Tensor& first) const {
    auto by_scale = [this, shift](const Tensor& v) { return v * scale - shift; };
    auto square = [](auto v) { return v * v; };
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i) {
      out[i] = square(by_scale(x[i]));
      first[i] = square(x[i][0].item<float>()) + 1.0f;
    }
  }
};
// CHECK-LABEL: struct Scaled {
// CHECK: auto _b_by_scale = [this, shift](const ::vmap::batched::Value& v) -> ::vmap::batched::Value {
// CHECK: auto _b_square_vmap_Tensor = [](::vmap::batched::Value v) -> ::vmap::batched::Value {
// CHECK: auto _b_square_float = [](::vmap::batched::Value v) -> ::vmap::batched::Value {
// CHECK: vb::at(out, i) = _b_square_vmap_Tensor(_b_by_scale(vb::at(x, i)));  // line 53
// CHECK: vb::at(first, i) = _b_square_float(vb::at(x, i)[0].item<float>()) + 1.0f;  // line 54

// A lambda holding the loop calls one of the function around it: it captures by default,
// so it captures the clone too.
void held(const Tensor& x, Tensor& out) {
  auto offset = [](const Tensor& v, double by) { return v.sum() + by; };
  auto run = [&](Tensor& into) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i) into[i] = offset(x[i], 2.0);
  };
  run(out);
}
// CHECK-LABEL: void held(
// CHECK: auto _b_offset = [](const ::vmap::batched::Value& v, double by) -> ::vmap::batched::Value {
// CHECK: vb::at(into, i) = _b_offset(vb::at(x, i), 2.0);  // line 71

// A lambda of numbers that reads numbers it captures: the scalar kernel calls it too.
void bounded_steps(const Tensor& x, int limit, Tensor& out) {
  const float halve = 0.5f;
  auto steps = [&](float v) {
    int count = 0;
    while (count < limit && (v > 0.1f || v < -0.1f)) { v *= halve; ++count; }
    return count;
  };
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = steps(x[i].item<float>());
}
// CHECK-LABEL: void bounded_steps(
// CHECK: vb::at(out, i) = vb::fused_scalar([&steps](float a) {
// CHECK: return steps(a);

int main() {
  Tensor x = (arange(24).reshape({8, 3}).to(kFloat) * 0.37).sin();
  Tensor x1 = (arange(8).to(kFloat) * 0.61).sin() * 2;
  Tensor W = (arange(12).reshape({4, 3}).to(kFloat) * 0.3).cos();
  Tensor b = arange(4).to(kFloat) * 0.1 - 0.2;
  Tensor o3 = zeros({8, 3}), o4 = zeros({8, 4}), o1 = zeros({8});
  shifted_squares(x, o3);
  std::cout << o3 << "\n";
  layer(x, W, b, o4);
  std::cout << o4 << "\n";
  positive_cubes(x1, o1);
  std::cout << o1 << "\n";
  Scaled{}.apply(x, 0.25f, o3, o1);
  std::cout << o3 << "\n" << o1 << "\n";
  held(x, o1);
  std::cout << o1 << "\n";
  Tensor counts = zeros({8}, kInt32);
  bounded_steps(x1 * 3, 4, counts);
  std::cout << counts << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
