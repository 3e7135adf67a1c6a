// Calls of member functions from a vmap loop (SPEC section 6: loops in member functions;
// section 2: calls of functions of this file): each member function defined in its class is
// batched as a member clone beside it (const as it is, reading the members it reads):
// helpers defined below the loop in the class, explicit this->, an early return, a static
// member called as Class::f, and members of other objects called from a free function.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

class Scorer {
 public:
  Scorer(Tensor w, float scale, float floor) : w_(w), scale_(scale), floor_(floor) {}

  // The loop comes first; the helpers it calls are defined below it in the class.
  void score(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i) {
      Tensor h = project(x[i]);
      out[i] = this->squash(h) + clip(h.sum().item<float>());
    }
  }

  void rescale(const Tensor& x, Tensor& out) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = x[i] * gain(x[i].amax(0).item<float>());
  }

  Tensor project(const Tensor& v) const { return w_.mv(v) * scale_; }
  Tensor squash(const Tensor& h) const { return tanh(h); }
  float clip(float s) const {
    if (s < floor_) return floor_;
    return s;
  }
  float gain(float peak) { return peak > 0.0f ? 1.0f / peak : 1.0f; }
  static Tensor twice(const Tensor& t) { return t * 2.0f; }

 private:
  Tensor w_;
  float scale_;
  float floor_;
};

struct Pair {
  float a = 1.5f;
  Tensor mix(const Tensor& x, const Tensor& y) const { return x * a + y; }
};

void from_outside(const Scorer& s, const Pair& p, const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = p.mix(Scorer::twice(x[i]), s.squash(x[i]));
}

int main() {
  manual_seed(5);
  Scorer s(randn({3, 4}), 0.5f, -0.25f);
  Tensor x = randn({6, 4}), out = zeros({6, 3});
  s.score(x, out);
  std::cout << out << "\n";
  Tensor r = zeros({6, 4});
  s.rescale(x, r);
  std::cout << r << "\n";
  Pair p;
  Tensor o = zeros({6, 4});
  from_outside(s, p, x, o);
  std::cout << o << "\n";
}

// CHECK-LABEL: void score(
// CHECK: vb::Value h = _b_project(vb::at(x, i));  // line 18
// CHECK: vb::at(out, i) = this->_b_squash(h) + _b_clip(h.sum().item<float>());  // line 19
// CHECK-LABEL: void rescale(
// CHECK: vb::at(out, i) = vb::at(x, i) * _b_gain(vb::at(x, i).amax(0).item<float>());  // line 26
// CHECK: ::vmap::batched::Value _b_project(const ::vmap::batched::Value& v) const {
// CHECK: ::vmap::batched::Value _b_squash(const ::vmap::batched::Value& h) const {
// CHECK: ::vmap::batched::Value _b_clip(::vmap::batched::Value s) const {
// CHECK: _b_returns.exit(vb::scalar_cast<float>(floor_));  // line 32
// CHECK: ::vmap::batched::Value _b_gain(::vmap::batched::Value peak) {
// CHECK: static ::vmap::batched::Value _b_twice(const ::vmap::batched::Value& t) {
// CHECK: ::vmap::batched::Value _b_mix(const ::vmap::batched::Value& x, const ::vmap::batched::Value& y) const {
// CHECK-LABEL: void from_outside(
// CHECK: vb::at(out, i) = p._b_mix(Scorer::_b_twice(vb::at(x, i)), s._b_squash(vb::at(x, i)));  // line 52

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
