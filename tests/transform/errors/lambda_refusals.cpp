// Lambdas the loop may not call as it calls a function of the file: each is refused at the
// call, with what to change; the file is left untouched.
#include <vmap/vmap.hpp>
using namespace vmap;

// Called with no per-example argument, a lambda that writes what it captures would run
// once for all examples.
void counted(const Tensor& x, Tensor& out) {
  int calls = 0;
  auto next = [&] { return calls++; };
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = x[i] * next();
// CHECK: {{.*}}lambda_refusals.cpp:[[@LINE-1]]:59: error: call to 'next' has no batching rule and cannot run per example
// CHECK: note: use runtime ops, <cmath> functions or functions defined in this file with no side effects
}

void reads_accumulator(const Tensor& x, Tensor& out, float& total) {
  auto scaled = [&](const Tensor& v) { return v * total; };
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    total += x[i].sum().item<float>();
    out[i] = scaled(x[i]);
// CHECK: {{.*}}lambda_refusals.cpp:[[@LINE-1]]:14: error: call to 'scaled' has no batching rule and cannot run per example
// CHECK: note: functions defined in this file are batched as clones, but not this one: it captures 'total', which the loop writes
  }
}

void mutable_state(const Tensor& x, Tensor& out) {
  auto doubled = [](float v) mutable { return v * 2; };
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = doubled(x[i].item<float>());
// CHECK: {{.*}}lambda_refusals.cpp:[[@LINE-1]]:52: error: call to 'doubled' has no batching rule and cannot run per example
// CHECK: note: {{.*}}it is a mutable lambda, whose calls may change what it holds
}

void init_capture(const Tensor& x, Tensor& out) {
  auto scaled = [k = x.size(1)](const Tensor& v) { return v * k; };
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = scaled(x[i]);
// CHECK: {{.*}}lambda_refusals.cpp:[[@LINE-1]]:52: error: call to 'scaled' has no batching rule and cannot run per example
// CHECK: note: {{.*}}it has an init-capture ('[name = ...]'), which its batched copy would evaluate again
}

void captured_by_name(const Tensor& x, Tensor& out) {
  auto sq = [](const Tensor& v) { return v * v; };
  auto run = [&x, &sq](Tensor& into) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i) into[i] = sq(x[i]);
// CHECK: {{.*}}lambda_refusals.cpp:[[@LINE-1]]:55: error: call to 'sq' has no batching rule and cannot run per example
// CHECK: note: {{.*}}the lambda holding the loop captures it by name; capture by default ('[&]' or '[=]'), which captures its batched copy too
  };
  run(out);
}

// Its clone would go after the declaration, here inside the `if`'s parentheses.
void in_an_if(const Tensor& x, const Tensor& w, Tensor& out) {
  if (auto f = [&](const Tensor& v) { return matmul(v, w); }; x.size(0) > 0) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i) out[i] = f(x[i]);
// CHECK: {{.*}}lambda_refusals.cpp:[[@LINE-1]]:54: error: call to 'f' has no batching rule and cannot run per example
// CHECK: note: {{.*}}it is a lambda not stored in a variable declared on its own in a block ('auto f = [...](...) { ... };')
  }
}
// CHECK: 6 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
