// A Linear layer applied to one vector at a time: W [256, 256], 10,000 vectors.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

void linear_per_vector(const Tensor& x, const Tensor& weight, const Tensor& bias,
                       Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = linear(x[i], weight, bias);
}

static sample::CaseList cases() {
  manual_seed(2);
  const Tensor x = randn({10000, 256}).to(sample::device());
  const Tensor weight = (randn({256, 256}) / 16.0).to(sample::device());
  const Tensor bias = randn({256}).to(sample::device());
  return {{"Linear per vector, W 256x256, 10,000 vectors", 10000, [=](int64_t count) {
             Tensor out = zeros({count, 256}, sample::device());
             linear_per_vector(x.narrow(0, 0, count), weight, bias, out);
             return out;
           }}};
}
static const sample::Registration registration(cases);
