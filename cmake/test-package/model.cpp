#include <tiny/model.hpp>

using namespace vmap;

void tiny::scale_rows(const Tensor& x, Tensor& out) {
  const double scale = TINY_SCALE;  // undeclared unless the definition reached the tool
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * scale + kOffset;
}
