// x = x * x, five times over, per element of a 1e6 vector: a plain inner loop inside the
// vmap loop stays a loop; its body is batched.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

void square_five_times(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor value = x[i];
    for (int round = 0; round < 5; ++round)
      value = value * value;
    out[i] = value;
  }
}

static sample::CaseList cases() {
  manual_seed(7);
  const int64_t n = 1000000;
  // Near 1, so that the 32nd power neither underflows nor overflows.
  const Tensor x = (rand({n}) * 0.2 + 0.9).to(sample::device());
  return {{"x = x*x five times, 1e6", n, [=](int64_t count) {
             Tensor out = zeros({count}, sample::device());
             square_five_times(x.narrow(0, 0, count), out);
             return out;
           }}};
}
static const sample::Registration registration(cases);
