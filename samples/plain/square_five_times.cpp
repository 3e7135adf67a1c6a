// square_five_times (samples/square_five_times.cpp) as a plain C++ loop: one pass, the five
// multiplies in registers (Note [Plain C++ loops] in plain.hpp).
#include "plain.hpp"

using namespace vmap;

static sample::CaseList cases() {
  manual_seed(7);
  const int64_t n = 1000000;
  const Tensor x = rand({n}) * 0.2 + 0.9;
  return {{"x = x*x five times, 1e6", n, [=](int64_t count) {
             Tensor out = zeros({count});
             const float* in = x.data_ptr<float>();
             float* result = out.data_ptr<float>();
#pragma omp parallel for simd schedule(static) if (count > plain::kGrain)
             for (int64_t i = 0; i < count; ++i) {
               float value = in[i];
               for (int round = 0; round < 5; ++round) value = value * value;
               result[i] = value;
             }
             return out;
           }}};
}
static const sample::Registration registration(cases);
