// linear_per_vector (samples/linear_per_vector.cpp) by hand in LibTorch: one GEMM plus bias
// into the output.
#include <torch/types.h>

#include "harness/sample.hpp"

static sample::CaseList cases() {
  torch::manual_seed(2);
  const torch::Tensor x = torch::randn({10000, 256}).to(sample::device());
  const torch::Tensor weight = (torch::randn({256, 256}) / 16.0).to(sample::device());
  const torch::Tensor bias = torch::randn({256}).to(sample::device());
  return {{"Linear per vector, W 256x256, 10,000 vectors", 10000, [=](int64_t count) {
             torch::Tensor out = torch::zeros({count, 256}, sample::device());
             torch::addmm_out(out, bias, x.narrow(0, 0, count), weight.t());
             return out;
           }}};
}
static const sample::Registration registration(cases);
