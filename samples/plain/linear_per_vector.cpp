// linear_per_vector (samples/linear_per_vector.cpp) in plain C++: the bias into every row,
// then one sgemm (the OpenBLAS the runtime calls) adds x W^T (Note [Plain C++ loops] in
// plain.hpp).
#include "plain.hpp"

#include <cblas.h>

using namespace vmap;

static sample::CaseList cases() {
  manual_seed(2);
  const Tensor x = randn({10000, 256});
  const Tensor weight = randn({256, 256}) / 16.0;
  const Tensor bias = randn({256});
  return {{"Linear per vector, W 256x256, 10,000 vectors", 10000, [=](int64_t count) {
             const int64_t width = 256;
             Tensor out = zeros({count, width});
             const float* b = bias.data_ptr<float>();
             float* result = out.data_ptr<float>();
#pragma omp parallel for schedule(static) if (count * width > plain::kGrain)
             for (int64_t i = 0; i < count; ++i)
               for (int64_t d = 0; d < width; ++d) result[i * width + d] = b[d];
             cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(count),
                         static_cast<int>(width), static_cast<int>(width), 1.0f,
                         x.data_ptr<float>(), static_cast<int>(width), weight.data_ptr<float>(),
                         static_cast<int>(width), 1.0f, result, static_cast<int>(width));
             return out;
           }}};
}
static const sample::Registration registration(cases);
