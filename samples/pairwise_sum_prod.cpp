// The sum over all pairs (i, j) of x_i * y_j: two nested vmap loops reducing into one
// loop-invariant accumulator.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

Tensor pairwise_sum_prod(const Tensor& x, const Tensor& y) {
  // A double accumulator: at N=4096 the loop adds 16M float products one by one, and a
  // float32 running sum drifts by ~2e-4 relative, more than the 1e-4 both builds must meet.
  // On x's device: an in-place add into a CPU tensor cannot read a device one.
  Tensor total = zeros({}, TensorOptions(kDouble).device(x.device()));
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      total += x[i] * y[j];
  return total;
}

static sample::Case pairs_of(int64_t n) {
  // Positive values: the sum is far from 0, so the relative error stays meaningful.
  const Tensor x = rand({n}).to(sample::device());
  const Tensor y = rand({n}).to(sample::device());
  return {"pairwise_sum_prod, N=" + std::to_string(n), n,
          [=](int64_t count) { return pairwise_sum_prod(x.narrow(0, 0, count), y); }};
}

static sample::CaseList cases() {
  manual_seed(3);
  return {pairs_of(100), pairs_of(4096)};
}
static const sample::Registration registration(cases);
