// batch_gather (samples/batch_gather.cpp) by hand in LibTorch: one gather along the rows.
#include <torch/types.h>

#include "harness/sample.hpp"

static sample::CaseList cases() {
  torch::manual_seed(1);
  const torch::Tensor input = torch::randn({1024, 256}).to(sample::device());
  const torch::Tensor index = torch::randint(0, 256, {1024, 32}).to(sample::device());
  return {{"batch gather [1024,256], 32 idx/row", 1024, [=](int64_t count) {
             torch::Tensor out = torch::zeros({count, 32}, sample::device());
             out.copy_(input.narrow(0, 0, count).gather(1, index.narrow(0, 0, count)));
             return out;
           }}};
}
static const sample::Registration registration(cases);
