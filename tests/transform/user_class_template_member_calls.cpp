// A member function of a class template calling another member of the class from its vmap
// loop: the callee is batched as a member clone written once into the class template, and
// each specialization (Head<float>, Head<double>) compiles it with its own T.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

template <class T>
class Head {
 public:
  Head(Tensor w, T scale) : w_(w), scale_(scale) {}
  void forward(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = act(w_.mv(x[i]));
  }
  Tensor act(const Tensor& h) const { return relu(h) * scale_ + static_cast<T>(1); }
 private:
  Tensor w_;
  T scale_;
};

int main() {
  manual_seed(2);
  Tensor w = randn({3, 4}), x = randn({5, 4}), out = zeros({5, 3});
  Head<float>(w, 0.5f).forward(x, out);
  std::cout << out << "\n";
  Head<double>(w, 2.0).forward(x, out);
  std::cout << out << "\n";
}

// CHECK-LABEL: void forward(
// CHECK: vb::at(out, i) = _b_act(vb::mv(w_, vb::at(x, i)));  // line 15
// CHECK: // clang-vmap: batched clone of 'act' (line 17)
// CHECK-NEXT: ::vmap::batched::Value _b_act(const ::vmap::batched::Value& h) const {
// CHECK: return vb::relu(h) * scale_ + static_cast<T>(1);  // line 17
// CHECK-NOT: batched clone of 'act'

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
