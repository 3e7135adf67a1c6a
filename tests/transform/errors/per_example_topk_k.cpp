// topk's k and one_hot's num_classes set the shape of the result, which must be the same for
// every example: a per-example one is refused (the dims and flags of sort too, and triu's
// diagonal, an integer option the rule takes as one number), and so is
// one_hot whose count is inferred from each example's labels (a fifth hostile hunt of issue
// 31: the batched one_hot raised where the examples' largest labels differed).
#include <vmap/vmap.hpp>
#include <tuple>
using namespace vmap;

void top(const Tensor& x, const Tensor& k, const Tensor& labels, Tensor& out, Tensor& codes) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t count = k[i].item<int64_t>();
    auto [values, indices] = x[i].topk(count);
// CHECK-DAG: {{.*}}per_example_topk_k.cpp:[[@LINE-1]]:40: error: per-example value used as argument 1 of 'topk' (an integer option of the op, such as a count or a diagonal), which must be the same for every example
    out[i] = values.sum() + std::get<0>(sort(x[i], 0, count > 2)).sum();
// CHECK-DAG: {{.*}}per_example_topk_k.cpp:[[@LINE-1]]:55: error: per-example value used as argument 3 of 'sort' (a flag), which must be the same for every example
    codes[i] = one_hot(labels[i], count + 1).sum();
// CHECK-DAG: {{.*}}per_example_topk_k.cpp:[[@LINE-1]]:35: error: per-example value used as argument 2 of 'one_hot' (an integer option of the op, such as a count or a diagonal), which must be the same for every example
  }
}

void diagonals(const Tensor& x, const Tensor& k, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i].triu(k[i].item<int64_t>());
// CHECK-DAG: {{.*}}per_example_topk_k.cpp:[[@LINE-1]]:24: error: per-example value used as argument 1 of 'triu' (an integer option of the op, such as a count or a diagonal), which must be the same for every example
}

void inferred(const Tensor& labels, Tensor& codes, Tensor& widths) {
#pragma vmap
  for (int64_t i = 0; i < labels.size(0); ++i) {
    codes[i] = one_hot(labels[i]).sum();
// CHECK-DAG: {{.*}}per_example_topk_k.cpp:[[@LINE-1]]:16: error: 'one_hot' infers the size of its result from each example's values, which may differ between examples
// CHECK-DAG: {{.*}}per_example_topk_k.cpp:[[@LINE-2]]:16: note: pass num_classes explicitly, the same for every example
    widths[i] = one_hot(labels[i], -1).size(1);
// CHECK-DAG: {{.*}}per_example_topk_k.cpp:[[@LINE-1]]:17: error: 'one_hot' infers the size of its result from each example's values, which may differ between examples
  }
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
