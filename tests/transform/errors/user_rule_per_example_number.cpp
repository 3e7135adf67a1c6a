// A user batching rule receives a per-example number only in a Tensor parameter (a 1-d
// tensor of the examples' numbers); here that parameter of the batched function is an int,
// so a per-example k is refused, naming the parameter and both functions.
#include <vmap/vmap.hpp>
using namespace vmap;

Tensor top(const Tensor& x, int k);
Tensor top_batched(const Tensor& xs, int k);
VMAP_BATCHED(top, top_batched);

void run(const Tensor& x, const Tensor& ks, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = top(x[i], 2) + top(x[i], ks[i].item<int>());
// CHECK: {{.*}}user_rule_per_example_number.cpp:[[@LINE-1]]:39: error: per-example argument for parameter 'k' of 'top', whose batched function 'top_batched' takes it as 'int', not as a Tensor
// CHECK: note: make that parameter of 'top_batched' a Tensor (it then receives the examples' values as a 1-d tensor), or pass a value that is the same for every example
}

int main() {}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
