// One loop calls a member of two specializations of a class template, in the same role;
// where they need different code (T v = s; converts the per-example float to double in
// Box<double> only), the template's one body cannot hold both clones: refused, saying so
// of this one loop and naming each call. (Calls in different roles get a clone each:
// ../helper_roles.cpp.)
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

template <class T>
struct Box {
  T bias;
  T shift(float s) const {
    T v = s;
    return v + bias;
  }
};

void run(const Tensor& x, Tensor& a) {
  Box<float> bf{1.0f};
  Box<double> bd{2.0};
#pragma vmap
// CHECK: {{.*}}class_template_clones_differ_in_one_loop.cpp:[[@LINE-1]]:1: error: this loop calls 'shift' of two specializations of a class template that need different batched code, but the template has one body
// CHECK: {{.*}}class_template_clones_differ_in_one_loop.cpp:[[@LINE+3]]:12: note: 'shift' called here
// CHECK: {{.*}}class_template_clones_differ_in_one_loop.cpp:[[@LINE+2]]:49: note: 'shift' called here
  for (int64_t i = 0; i < x.size(0); ++i)
    a[i] = bf.shift(x[i].sum().item<float>()) + bd.shift(x[i].sum().item<float>());
// CHECK: note: make the code of 'shift' the same for every template argument (cast to one type), or call it from one of the loops only
}

int main() {
  Tensor x = arange(6).reshape({3, 2}).to(kFloat), a = zeros({3});
  run(x, a);
  std::cout << a << "\n";
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
