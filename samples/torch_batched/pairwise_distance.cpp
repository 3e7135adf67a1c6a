// pairwise_distance (samples/pairwise_distance.cpp) as a LibTorch user batches it by hand:
// broadcast the differences, square, sum, root (and the squared distances without the root).
#include <torch/types.h>

#include "harness/sample.hpp"

#include <string>

static sample::Case distances_of(int64_t n, int64_t m, int64_t width) {
  const torch::Tensor x = torch::randn({n, width}).to(sample::device());
  const torch::Tensor y = torch::randn({m, width}).to(sample::device());
  return {"pairwise_distance " + std::to_string(n) + "x" + std::to_string(m) + "x" +
              std::to_string(width),
          n, [=](int64_t count) {
            torch::Tensor out = torch::zeros({count, m}, sample::device());
            const torch::Tensor difference = x.narrow(0, 0, count).unsqueeze(1) - y.unsqueeze(0);
            out.copy_(difference.pow(2).sum(-1).sqrt());
            return out;
          }};
}

// The seed's squared distances, `(x[i] - y[j]).pow(2).sum()`, batched the same way.
static sample::Case squared_distances_of(int64_t n, int64_t m, int64_t width) {
  const torch::Tensor x = torch::randn({n, width}).to(sample::device());
  const torch::Tensor y = torch::randn({m, width}).to(sample::device());
  return {"(x[i] - y[j]).pow(2).sum() " + std::to_string(n) + "x" + std::to_string(m) + "x" +
              std::to_string(width),
          n, [=](int64_t count) {
            torch::Tensor out = torch::zeros({count, m}, sample::device());
            const torch::Tensor difference = x.narrow(0, 0, count).unsqueeze(1) - y.unsqueeze(0);
            out.copy_(difference.pow(2).sum(-1));
            return out;
          }};
}

static sample::CaseList cases() {
  torch::manual_seed(4);
  return {distances_of(100, 200, 10), distances_of(2000, 2000, 64),
          squared_distances_of(100, 200, 10), squared_distances_of(2000, 2000, 64)};
}
static const sample::Registration registration(cases);
