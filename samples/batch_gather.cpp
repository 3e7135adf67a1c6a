// Batch gather: every row of a [1024, 256] batch picks its own 32 values.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

void batch_gather(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i)
    out[i] = input[i].index_select(0, index[i]);
}

static sample::CaseList cases() {
  manual_seed(1);
  const Tensor input = randn({1024, 256}).to(sample::device());
  const Tensor index = randint(0, 256, {1024, 32}).to(sample::device());
  return {{"batch gather [1024,256], 32 idx/row", 1024, [=](int64_t count) {
             Tensor out = zeros({count, 32}, sample::device());
             batch_gather(input.narrow(0, 0, count), index.narrow(0, 0, count), out);
             return out;
           }}};
}
static const sample::Registration registration(cases);
