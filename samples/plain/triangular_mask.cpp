// triangular_mask (samples/triangular_mask.cpp) as a plain C++ loop (Note [Plain C++ loops]
// in plain.hpp).
#include "plain.hpp"

using namespace vmap;

static sample::CaseList cases() {
  const int64_t n = 1024;
  return {{"upper-triangular mask 1024", n, [=](int64_t count) {
             Tensor mask = zeros({count, n}, kBool);
             bool* m = mask.data_ptr<bool>();
#pragma omp parallel for schedule(static) if (count * n > plain::kGrain)
             for (int64_t i = 0; i < count; ++i)
               for (int64_t j = 0; j < n; ++j) m[i * n + j] = j >= i;
             return mask;
           }}};
}
static const sample::Registration registration(cases);
