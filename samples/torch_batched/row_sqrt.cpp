// row_sqrt (samples/row_sqrt.cpp) by hand in LibTorch: one sqrt into the output.
#include <torch/types.h>

#include "harness/sample.hpp"

static sample::CaseList cases() {
  torch::manual_seed(6);
  const torch::Tensor x = torch::rand({1000, 100}).to(sample::device());
  return {{"per-row sqrt [1000,100]", 1000, [=](int64_t count) {
             torch::Tensor out = torch::zeros({count, 100}, sample::device());
             torch::sqrt_out(out, x.narrow(0, 0, count));
             return out;
           }}};
}
static const sample::Registration registration(cases);
