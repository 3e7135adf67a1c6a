// add_1d (samples/add_1d.cpp) as a plain C++ loop (Note [Plain C++ loops] in plain.hpp).
#include "plain.hpp"

using namespace vmap;

static sample::CaseList cases() {
  manual_seed(5);
  const int64_t n = 1000000;
  const Tensor a = randn({n});
  const Tensor b = randn({n});
  return {{"add_1d 1e6", n, [=](int64_t count) {
             Tensor out = zeros({count});
             const float* x = a.data_ptr<float>();
             const float* y = b.data_ptr<float>();
             float* z = out.data_ptr<float>();
#pragma omp parallel for simd schedule(static) if (count > plain::kGrain)
             for (int64_t i = 0; i < count; ++i) z[i] = x[i] + y[i];
             return out;
           }}};
}
static const sample::Registration registration(cases);
