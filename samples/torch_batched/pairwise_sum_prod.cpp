// pairwise_sum_prod (samples/pairwise_sum_prod.cpp) by hand in LibTorch: the outer product
// of float32 values, summed in double as the loop's double accumulator does.
#include <torch/types.h>

#include "harness/sample.hpp"

#include <string>

static sample::Case pairs_of(int64_t n) {
  const torch::Tensor x = torch::rand({n}).to(sample::device());
  const torch::Tensor y = torch::rand({n}).to(sample::device());
  return {"pairwise_sum_prod, N=" + std::to_string(n), n, [=](int64_t count) {
            return torch::outer(x.narrow(0, 0, count), y).sum(torch::kDouble);
          }};
}

static sample::CaseList cases() {
  torch::manual_seed(3);
  return {pairs_of(100), pairs_of(4096)};
}
static const sample::Registration registration(cases);
