// Loops in function templates that cannot be batched: a template this file never
// instantiates (no code to batch), specializations whose rewrites differ (the template
// has one body), and a specialization whose body is refused (noted where it is made).
#include <vmap/vmap.hpp>
#include <cstdint>
using namespace vmap;

template <class T>
void never_called(const Tensor& x, Tensor& out, T by) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
// CHECK: {{.*}}template_loops.cpp:[[@LINE-1]]:3: error: this loop is in a function template that this file never instantiates: there is no code of it to batch
// CHECK-NEXT: for (int64_t i = 0; i < x.size(0); ++i)
// CHECK: {{.*}}template_loops.cpp:[[@LINE-3]]:3: note: call the template in this file
    out[i] = x[i] * by;
}

template <class T>
void differ(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
// CHECK: {{.*}}template_loops.cpp:[[@LINE-1]]:3: error: the specializations 'differ<float>' and 'differ<long>' of this function template need different rewrites, but the template has one body
    T v = x[i].sum().item<float>();
    out[i] = v;
  }
}

struct Printer {
  void operator()(const Tensor& t) const;
};

template <class F>
void each(const Tensor& x, F f) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    f(x[i]);
// CHECK: {{.*}}template_loops.cpp:[[@LINE-1]]:5: error: call to 'operator()' has no batching rule and cannot run per example
}

void use(const Tensor& x, Tensor& out) {
  differ<float>(x, out);
  differ<int64_t>(x, out);
  each(x, Printer{});
// CHECK: {{.*}}template_loops.cpp:[[@LINE-1]]:3: note: in the specialization 'each<Printer>' of the template, instantiated here
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
