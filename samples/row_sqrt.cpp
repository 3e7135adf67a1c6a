// Square root of each row of a [1000, 100] matrix.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

void row_sqrt(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i].sqrt();
}

static sample::CaseList cases() {
  manual_seed(6);
  const Tensor x = rand({1000, 100}).to(sample::device());
  return {{"per-row sqrt [1000,100]", 1000, [=](int64_t count) {
             Tensor out = zeros({count, 100}, sample::device());
             row_sqrt(x.narrow(0, 0, count), out);
             return out;
           }}};
}
static const sample::Registration registration(cases);
