// add_1d (samples/add_1d.cpp) as a LibTorch user batches it by hand: one add into the output.
#include <torch/types.h>

#include "harness/sample.hpp"

static sample::CaseList cases() {
  torch::manual_seed(5);
  const int64_t n = 1000000;
  const torch::Tensor a = torch::randn({n}).to(sample::device());
  const torch::Tensor b = torch::randn({n}).to(sample::device());
  return {{"add_1d 1e6", n, [=](int64_t count) {
             torch::Tensor out = torch::zeros({count}, sample::device());
             torch::add_out(out, a.narrow(0, 0, count), b.narrow(0, 0, count));
             return out;
           }}};
}
static const sample::Registration registration(cases);
