// pairwise_distance (samples/pairwise_distance.cpp) as a plain C++ loop: y transposed once,
// then for each x_i the squared differences accumulate into its output row, the inner loop
// over j (contiguous, vectorised however small the width), in float and in k's order as
// the sample sums (no GEMM algebra: it changes the rounding; Note [Plain C++ loops] in
// plain.hpp).
#include "plain.hpp"

#include <cmath>
#include <string>
#include <vector>

using namespace vmap;

// out[i][j] = sum_k (x[i][k] - y[j][k])^2, and its root when `root`.
static Tensor distances(const Tensor& x, const Tensor& y, int64_t count, bool root) {
  const int64_t m = y.size(0), width = x.size(1);
  Tensor out = zeros({count, m});
  const float* xs = x.data_ptr<float>();
  const float* ys = y.data_ptr<float>();
  std::vector<float> transposed(static_cast<size_t>(width * m));  // [width, m]
  for (int64_t j = 0; j < m; ++j)
    for (int64_t k = 0; k < width; ++k) transposed[k * m + j] = ys[j * width + k];
  const float* columns = transposed.data();
  float* result = out.data_ptr<float>();
#pragma omp parallel for schedule(static) if (count * m * width > plain::kGrain)
  for (int64_t i = 0; i < count; ++i) {
    float* row = result + i * m;
    for (int64_t k = 0; k < width; ++k) {
      const float value = xs[i * width + k];
      const float* column = columns + k * m;
#pragma omp simd
      for (int64_t j = 0; j < m; ++j) {
        const float difference = value - column[j];
        row[j] += difference * difference;
      }
    }
    if (root) {
#pragma omp simd
      for (int64_t j = 0; j < m; ++j) row[j] = std::sqrt(row[j]);
    }
  }
  return out;
}

static sample::Case distances_of(const std::string& form, int64_t n, int64_t m, int64_t width,
                                 bool root) {
  const Tensor x = randn({n, width});
  const Tensor y = randn({m, width});
  return {form + std::to_string(n) + "x" + std::to_string(m) + "x" + std::to_string(width), n,
          [=](int64_t count) { return distances(x, y, count, root); }};
}

static sample::CaseList cases() {
  manual_seed(4);
  const std::string distance = "pairwise_distance ", squared = "(x[i] - y[j]).pow(2).sum() ";
  return {distances_of(distance, 100, 200, 10, true), distances_of(distance, 2000, 2000, 64, true),
          distances_of(squared, 100, 200, 10, false), distances_of(squared, 2000, 2000, 64, false)};
}
static const sample::Registration registration(cases);
