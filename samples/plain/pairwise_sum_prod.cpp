// pairwise_sum_prod (samples/pairwise_sum_prod.cpp) as a plain C++ loop: every product
// x_i * y_j in float, summed in a double as the sample does (no product of sums: that
// changes the rounding; Note [Plain C++ loops] in plain.hpp).
#include "plain.hpp"

#include <string>

using namespace vmap;

static sample::Case pairs_of(int64_t n) {
  const Tensor x = rand({n});
  const Tensor y = rand({n});
  return {"pairwise_sum_prod, N=" + std::to_string(n), n, [=](int64_t count) {
            const float* xs = x.data_ptr<float>();
            const float* ys = y.data_ptr<float>();
            double total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total) if (count * n > plain::kGrain)
            for (int64_t i = 0; i < count; ++i) {
              double row = 0;
#pragma omp simd reduction(+ : row)
              for (int64_t j = 0; j < n; ++j) row += static_cast<double>(xs[i] * ys[j]);
              total += row;
            }
            return tensor(total, kDouble);
          }};
}

static sample::CaseList cases() {
  manual_seed(3);
  return {pairs_of(100), pairs_of(4096)};
}
static const sample::Registration registration(cases);
