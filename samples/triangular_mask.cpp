// The upper-triangular mask of a 1024x1024 matrix, one element at a time: the value
// depends only on the induction variables.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

void upper_triangular_mask(Tensor& mask) {
#pragma vmap
  for (int64_t i = 0; i < mask.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < mask.size(1); ++j)
      mask[i][j] = j >= i;
}

static sample::CaseList cases() {
  const int64_t n = 1024;
  return {{"upper-triangular mask 1024", n, [=](int64_t count) {
             Tensor mask = zeros({count, n}, TensorOptions(kBool).device(sample::device()));
             upper_triangular_mask(mask);
             return mask;
           }}};
}
static const sample::Registration registration(cases);
