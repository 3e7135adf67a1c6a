// Two loops of one (non-template) function call a member of two specializations of a
// class template; where they need different code (T v = s; converts the per-example float
// to double in Box<double> only), the template, which has one body, cannot hold both
// clones: refused at the second loop, naming the first. (The same code for every
// specialization is batched: ../user_class_template_member_calls.cpp.)
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

void run(const Tensor& x, Tensor& a, Tensor& b) {
  Box<float> bf{1.0f};
  Box<double> bd{2.0};
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    a[i] = bf.shift(x[i].sum().item<float>());
#pragma vmap
// CHECK: {{.*}}class_template_clones_differ_across_loops.cpp:[[@LINE-1]]:1: error: this loop and the loop at line 22 call 'shift' of two specializations of a class template that need different batched code, but the template has one body
// CHECK: {{.*}}class_template_clones_differ_across_loops.cpp:24:12: note: 'shift' called here
// CHECK: {{.*}}class_template_clones_differ_across_loops.cpp:[[@LINE+3]]:12: note: 'shift' called here
// CHECK: note: make the code of 'shift' the same for every template argument (cast to one type), or call it from one of the loops only
  for (int64_t i = 0; i < x.size(0); ++i)
    b[i] = bd.shift(x[i].sum().item<float>());
}

int main() {
  Tensor x = arange(6).reshape({3, 2}).to(kFloat), a = zeros({3}), b = zeros({3});
  run(x, a, b);
  std::cout << a << "\n" << b << "\n";
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
