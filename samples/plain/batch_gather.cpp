// batch_gather (samples/batch_gather.cpp) as a plain C++ loop (Note [Plain C++ loops] in
// plain.hpp).
#include "plain.hpp"

using namespace vmap;

static sample::CaseList cases() {
  manual_seed(1);
  const Tensor input = randn({1024, 256});
  const Tensor index = randint(0, 256, {1024, 32});
  return {{"batch gather [1024,256], 32 idx/row", 1024, [=](int64_t count) {
             Tensor out = zeros({count, 32});
             const float* rows = input.data_ptr<float>();
             const int64_t* picks = index.data_ptr<int64_t>();
             float* result = out.data_ptr<float>();
#pragma omp parallel for schedule(static) if (count * 32 > plain::kGrain)
             for (int64_t i = 0; i < count; ++i)
               for (int64_t k = 0; k < 32; ++k)
                 result[i * 32 + k] = rows[i * 256 + picks[i * 32 + k]];
             return out;
           }}};
}
static const sample::Registration registration(cases);
