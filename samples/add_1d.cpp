// Elementwise add of two 1-d tensors, one element per example.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

void add_1d(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i)
    out[i] = a[i] + b[i];
}

static sample::CaseList cases() {
  manual_seed(5);
  const int64_t n = 1000000;
  const Tensor a = randn({n}).to(sample::device());
  const Tensor b = randn({n}).to(sample::device());
  return {{"add_1d 1e6", n, [=](int64_t count) {
             Tensor out = zeros({count}, sample::device());
             add_1d(a.narrow(0, 0, count), b.narrow(0, 0, count), out);
             return out;
           }}};
}
static const sample::Registration registration(cases);
