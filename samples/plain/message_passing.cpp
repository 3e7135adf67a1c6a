// message_passing (samples/message_passing.cpp) in plain C++: each node's weighted sum of
// its neighbours' features into a [nodes, width] buffer, the bias and the residual into the
// output, one sgemm adds messages W^T (the OpenBLAS the runtime calls), then the ReLU
// (Note [Plain C++ loops] in plain.hpp).
#include "plain.hpp"

#include <cblas.h>

#include <algorithm>
#include <vector>

using namespace vmap;

static sample::CaseList cases() {
  manual_seed(9);
  const int64_t nodes = 2048, degree = 8, width = 64;
  const Tensor features = randn({nodes, width});
  const Tensor neighbours = randint(0, nodes, {nodes, degree});
  const Tensor real_degree = randint(1, degree + 1, {nodes, 1});
  const Tensor slot = arange(degree).unsqueeze(0);
  const Tensor edge_weights = rand({nodes, degree}) * (slot < real_degree);
  const Tensor weight = randn({width, width}) / 8.0;
  const Tensor bias = randn({width});
  return {{"GNN message passing 2048 nodes x 8, width 64", nodes, [=](int64_t count) {
             Tensor out = zeros({count, width});
             std::vector<float> messages(static_cast<size_t>(count * width));
             const float* f = features.data_ptr<float>();
             const int64_t* nb = neighbours.data_ptr<int64_t>();
             const float* w = edge_weights.data_ptr<float>();
             const float* b = bias.data_ptr<float>();
             float* message = messages.data();
             float* result = out.data_ptr<float>();
#pragma omp parallel for schedule(static) if (count * degree * width > plain::kGrain)
             for (int64_t node = 0; node < count; ++node) {
               float* m = message + node * width;
               for (int64_t k = 0; k < degree; ++k) {
                 const float* source = f + nb[node * degree + k] * width;
                 const float scale = w[node * degree + k];
                 for (int64_t d = 0; d < width; ++d) m[d] += source[d] * scale;
               }
               for (int64_t d = 0; d < width; ++d)
                 result[node * width + d] = b[d] + f[node * width + d];
             }
             cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(count),
                         static_cast<int>(width), static_cast<int>(width), 1.0f, message,
                         static_cast<int>(width), weight.data_ptr<float>(),
                         static_cast<int>(width), 1.0f, result, static_cast<int>(width));
             const int64_t n = count * width;
#pragma omp parallel for simd schedule(static) if (n > plain::kGrain)
             for (int64_t k = 0; k < n; ++k) result[k] = std::max(result[k], 0.0f);
             return out;
           }}};
}
static const sample::Registration registration(cases);
