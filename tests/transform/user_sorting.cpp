// SPEC section 6's sorting ops per example, as a user writes them: top-k retrieval with
// structured bindings (`auto [scores, ids] = ...`), std::get on the tuple, a named tuple
// local, sort for a per-example median and a trimmed mean, argsort ranks, topk of the
// smallest along dim 0, integer keys, and one_hot of per-example labels (class count given,
// or computed from all of them before the loop). None may run per example.
#include <vmap/vmap.hpp>
#include <iostream>
#include <tuple>
using namespace vmap;

void retrieve(const Tensor& queries, const Tensor& keys, Tensor& best, Tensor& best_ids,
              Tensor& accuracy, const Tensor& targets) {
#pragma vmap
  for (int64_t q = 0; q < queries.size(0); ++q) {
    Tensor scores = keys.matmul(queries[q]);
    auto [top, ids] = scores.topk(3);
    best[q] = top;
    best_ids[q] = ids;
    Tensor hit = (ids == targets[q]).any();
    accuracy[q] = hit.to(kFloat) + std::get<0>(topk(scores, 1)).sum() * 0;
  }
}
// CHECK-LABEL: void retrieve(
// CHECK: auto [top, ids] = scores.topk(3);  // line 16
// CHECK: vb::at(best, q) = top;  // line 17
// CHECK: vb::at(best_ids, q) = ids;  // line 18
// CHECK: vb::at(accuracy, q) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return a + b * 0; }, hit.to(kFloat), std::get<0>(vb::topk(scores, 1)).sum());  // line 20

void statistics(const Tensor& x, const Tensor& k, Tensor& medians, Tensor& trimmed,
                Tensor& ranks, Tensor& lowest, Tensor& int_sorted) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    std::tuple<Tensor, Tensor> sorted = x[i].sort();
    Tensor values = std::get<0>(sorted);
    medians[i] = values[x.size(1) / 2];
    trimmed[i] = values.narrow(0, 1, x.size(1) - 2).mean();
    ranks[i] = argsort(argsort(x[i], 0, true));
    auto smallest = topk(x[i].reshape({2, -1}), 2, 0, false);
    lowest[i] = std::get<0>(smallest) + std::get<1>(smallest).to(kFloat);
    int_sorted[i] = std::get<0>(sort(k[i], -1, true)) * 10 + k[i].argsort().to(kInt);
  }
}
// CHECK-LABEL: void statistics(
// CHECK: std::tuple<vb::Value, vb::Value> sorted = vb::at(x, i).sort();  // line 33
// CHECK: vb::Value values = std::get<0>(sorted);  // line 34
// CHECK: vb::at(ranks, i) = vb::argsort(vb::argsort(vb::at(x, i), 0, true));  // line 37
// CHECK: auto smallest = vb::topk(vb::at(x, i).reshape({2, -1}), 2, 0, false);  // line 38
// CHECK: vb::at(lowest, i) = std::get<0>(smallest) + std::get<1>(smallest).to(kFloat);  // line 39
// CHECK: vb::at(int_sorted, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return a * 10 + b; }, std::get<0>(vb::sort(vb::at(k, i), -1, true)), vb::at(k, i).argsort().to(kInt));  // line 40

void encode(const Tensor& labels, const Tensor& uniform, Tensor& counts, Tensor& inferred) {
#pragma vmap
  for (int64_t i = 0; i < labels.size(0); ++i) {
    counts[i] = one_hot(labels[i], 5).sum(0);
    inferred[i] = one_hot(uniform[i], uniform.amax().item<int64_t>() + 1);
  }
}
// CHECK-LABEL: void encode(
// CHECK: vb::at(counts, i) = vb::one_hot(vb::at(labels, i), 5).sum(0);  // line 54
// CHECK: vb::at(inferred, i) = vb::one_hot(vb::at(uniform, i), uniform.amax().item<int64_t>() + 1);  // line 55
// CHECK-NOT: per_example

int main() {
  const int64_t n = 4;
  Tensor queries = (arange(n * 3).reshape({n, 3}).to(kFloat) * 0.7).sin();
  Tensor keys = (arange(8 * 3).reshape({8, 3}).to(kFloat) * 1.3).cos();
  Tensor targets = tensor({1, 5, 2, 7}).to(kInt64);
  Tensor best = zeros({n, 3}), best_ids = zeros({n, 3}, kInt64), accuracy = zeros({n});
  retrieve(queries, keys, best, best_ids, accuracy, targets);
  std::cout << best << "\n" << best_ids << "\n" << accuracy << "\n";

  Tensor x = (arange(n * 6).reshape({n, 6}).to(kFloat) * 2.1).sin();
  Tensor k = ((arange(n * 6) * 7) % 11).reshape({n, 6}).to(kInt);
  Tensor medians = zeros({n}), trimmed = zeros({n}), ranks = zeros({n, 6}, kInt64);
  Tensor lowest = zeros({n, 2, 3}), int_sorted = zeros({n, 6}, kInt);
  statistics(x, k, medians, trimmed, ranks, lowest, int_sorted);
  std::cout << medians << "\n" << trimmed << "\n" << ranks << "\n" << lowest << "\n"
            << int_sorted << "\n";

  Tensor labels = (arange(n * 7) * 3 % 5).reshape({n, 7});
  Tensor uniform = tensor({{0, 3, 1}, {3, 3, 2}, {1, 0, 3}, {2, 3, 0}}).to(kInt64);
  Tensor counts = zeros({n, 5}, kInt64), inferred = zeros({n, 3, 4}, kInt64);
  encode(labels, uniform, counts, inferred);
  std::cout << counts << "\n" << inferred << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
