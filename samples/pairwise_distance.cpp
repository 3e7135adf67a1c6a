// Euclidean distance between every x_i and every y_j, one pair at a time; and the squared
// distance in the seed's own form, `(x[i] - y[j]).pow(2).sum()`.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

void pairwise_distance(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) {
      Tensor difference = x[i] - y[j];
      out[i][j] = (difference * difference).sum().sqrt();
    }
}

void pairwise_squared_distance(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      out[i][j] = (x[i] - y[j]).pow(2).sum();
}

static sample::Case distances_of(int64_t n, int64_t m, int64_t width) {
  const Tensor x = randn({n, width}).to(sample::device());
  const Tensor y = randn({m, width}).to(sample::device());
  return {"pairwise_distance " + std::to_string(n) + "x" + std::to_string(m) + "x" +
              std::to_string(width),
          n, [=](int64_t count) {
            Tensor out = zeros({count, m}, sample::device());
            pairwise_distance(x.narrow(0, 0, count), y, out);
            return out;
          }};
}

static sample::Case squared_distances_of(int64_t n, int64_t m, int64_t width) {
  const Tensor x = randn({n, width}).to(sample::device());
  const Tensor y = randn({m, width}).to(sample::device());
  return {"(x[i] - y[j]).pow(2).sum() " + std::to_string(n) + "x" + std::to_string(m) + "x" +
              std::to_string(width),
          n, [=](int64_t count) {
            Tensor out = zeros({count, m}, sample::device());
            pairwise_squared_distance(x.narrow(0, 0, count), y, out);
            return out;
          }};
}

static sample::CaseList cases() {
  manual_seed(4);
  return {distances_of(100, 200, 10), distances_of(2000, 2000, 64),
          squared_distances_of(100, 200, 10), squared_distances_of(2000, 2000, 64)};
}
static const sample::Registration registration(cases);
