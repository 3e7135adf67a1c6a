// row_sqrt (samples/row_sqrt.cpp) as a plain C++ loop (Note [Plain C++ loops] in plain.hpp).
#include "plain.hpp"

#include <cmath>

using namespace vmap;

static sample::CaseList cases() {
  manual_seed(6);
  const Tensor x = rand({1000, 100});
  return {{"per-row sqrt [1000,100]", 1000, [=](int64_t count) {
             Tensor out = zeros({count, 100});
             const float* in = x.data_ptr<float>();
             float* result = out.data_ptr<float>();
             const int64_t n = count * 100;
#pragma omp parallel for simd schedule(static) if (n > plain::kGrain / 2)
             for (int64_t k = 0; k < n; ++k) result[k] = std::sqrt(in[k]);
             return out;
           }}};
}
static const sample::Registration registration(cases);
