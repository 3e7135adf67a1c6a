// An op whose values may raise (an index out of range, an integer divisor of zero) under a
// per-example `if` or `?:` raises as written only for the examples that run it: the batched
// op, which computes every example, runs again with the skipped examples' operands those of
// the first that runs (Note [Errors only skipped examples raise] in
// rules/src/batched/batched_value.cpp), and a `?:` arm that may raise is run under its mask
// (Note [Masked operands]). A C++ number stored into a slot that cannot hold it raises as
// Tensor::fill_ does (the batched store converted it silently). The printed program's results
// are compared with the loop's as written.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
#include <string>
using namespace vmap;

void picked_sums(const Tensor& x, const Tensor& picks, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const int64_t k = picks[i].item<int64_t>();
    if (k >= 0) {
      out[i] = x[i].index_select(0, picks[i].unsqueeze(0)).sum() +
               x[i].gather(0, picks[i].unsqueeze(0)).sum() +
               one_hot(picks[i], x.size(1)).sum();
    } else {
      out[i] = -1.0f;
    }
  }
}
// CHECK-LABEL: void picked_sums(
// CHECK: vb::Where

void guarded_remainders(const Tensor& x, const Tensor& d, Tensor& out, Tensor& quotients) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const int64_t q = d[i].item<int64_t>();
    out[i] = q == 0 ? x[i] : x[i].remainder(q) + x[i].fmod(q);
    if (q != 0) quotients[i] = x[i].floor_divide(q) + x[i].div(q, "trunc");
  }
}
// CHECK-LABEL: void guarded_remainders(
// CHECK: vb::where(q == 0, [&] { return vb::at(x, i); }, [&] { return vb::at(x, i).remainder(q) + vb::at(x, i).fmod(q); })

void stored_numbers(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = x[i].item<float>() * 2;
}

int main() {
  const Tensor x = arange(20).reshape({5, 4}).to(kFloat);
  const Tensor picks = tensor({int64_t{2}, -1, 3, -7, 0});
  Tensor sums = zeros({5});
  picked_sums(x, picks, sums);
  std::cout << sums << "\n";
  const Tensor xi = arange(10).reshape({5, 2}) - 4;
  const Tensor d = tensor({int64_t{3}, 0, -2, 0, 5});
  Tensor rems = zeros({5, 2}, kInt64), quotients = zeros({5, 2}, kInt64);
  guarded_remainders(xi, d, rems, quotients);
  std::cout << rems << quotients << "\n";
  // Every number fits: stored; one does not: the error fill_ raises as written.
  for (const float big : {100.0f, 1e20f}) {
    Tensor stored = zeros({3}, kInt64);
    try {
      stored_numbers(tensor({1.5f, big, -3.25f}), stored);
      std::cout << stored << "\n";
    } catch (const Error& e) {
      // The rewrite's message names the loop's line too: compare what follows it.
      const std::string what = e.what();
      std::cout << "error: " << what.substr(what.find("fill_:")) << "\n";
    }
  }
}

// CHECK: int main() {

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
