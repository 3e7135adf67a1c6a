// triangular_mask (samples/triangular_mask.cpp) by hand in LibTorch: fill, then zero below
// the diagonal, in place.
#include <torch/types.h>

#include "harness/sample.hpp"

static sample::CaseList cases() {
  const int64_t n = 1024;
  return {{"upper-triangular mask 1024", n, [=](int64_t count) {
             const auto options = torch::TensorOptions(torch::kBool).device(sample::device());
             torch::Tensor mask = torch::zeros({count, n}, options);
             mask.fill_(true).triu_();
             return mask;
           }}};
}
static const sample::Registration registration(cases);
