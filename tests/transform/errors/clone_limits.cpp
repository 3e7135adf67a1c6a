// Functions of this file that cannot be batched as clones: each refusal says why.
#include <vmap/vmap.hpp>
using namespace vmap;

template <class... Ts>
Tensor total(const Tensor& first, const Ts&... rest) { return (first + ... + rest); }

template <class T>
Tensor shifted(const Tensor& x, T offset = T(1)) { return x + offset; }

// Member functions are cloned as members beside them: only those defined in their class,
// and not virtual ones (the clone would not be overridden).
struct Scaler {
  float factor;
  Tensor apply(const Tensor& x) const;
  virtual Tensor bend(const Tensor& x) const { return x * factor; }
};
Tensor Scaler::apply(const Tensor& x) const { return x * factor; }

void features(const Tensor& x, const Scaler& scaler, Tensor& out) {
  Tensor later(const Tensor& x);  // declared in the function only
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = total(x[i], x[i]);
// CHECK: {{.*}}clone_limits.cpp:[[@LINE-1]]:14: error: call to 'total' has no batching rule and cannot run per example
// CHECK: note: functions defined in this file are batched as clones, but not this one: its template has a parameter pack, a template template parameter or an unnamed parameter
    out[i] += shifted(x[i], 1.0f) + shifted<float>(x[i]);
// CHECK: {{.*}}clone_limits.cpp:[[@LINE-1]]:37: error: call to 'shifted' has no batching rule and cannot run per example
// CHECK: note: functions defined in this file are batched as clones, but not this one: the call leaves an argument of a function template to its default; pass it explicitly
    out[i] += scaler.apply(x[i]);
// CHECK: {{.*}}clone_limits.cpp:[[@LINE-1]]:15: error: call to 'apply' has no batching rule and cannot run per example
// CHECK: note: functions defined in this file are batched as clones, but not this one: it is a member function defined outside its class
    out[i] += scaler.bend(x[i]);
// CHECK: {{.*}}clone_limits.cpp:[[@LINE-1]]:15: error: call to 'bend' has no batching rule and cannot run per example
// CHECK: note: functions defined in this file are batched as clones, but not this one: it is a virtual, special or operator member function
    out[i] += later(x[i]);
// CHECK: {{.*}}clone_limits.cpp:[[@LINE-1]]:15: error: call to 'later' has no batching rule and cannot run per example
// CHECK: note: functions defined in this file are batched as clones, but not this one: it is defined after the loop that calls it, and not declared before the loop outside any function in this file
// CHECK: 5 errors generated.
  }
}

Tensor later(const Tensor& x) { return x.relu(); }

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
