// square_five_times (samples/square_five_times.cpp) by hand in LibTorch: five squaring
// passes, the first into the output, the others in place.
#include <torch/types.h>

#include "harness/sample.hpp"

static sample::CaseList cases() {
  torch::manual_seed(7);
  const int64_t n = 1000000;
  const torch::Tensor x = (torch::rand({n}) * 0.2 + 0.9).to(sample::device());
  return {{"x = x*x five times, 1e6", n, [=](int64_t count) {
             torch::Tensor out = torch::zeros({count}, sample::device());
             const torch::Tensor prefix = x.narrow(0, 0, count);
             torch::mul_out(out, prefix, prefix);
             for (int round = 1; round < 5; ++round) out.mul_(out);
             return out;
           }}};
}
static const sample::Registration registration(cases);
