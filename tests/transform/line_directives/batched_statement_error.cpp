// The rewrite of this file is compiled with SCALE defined to a name that does not
// exist (the tool saw SCALE=2): the compiler's error in the batched statement must name
// this file and the statement's line (line_directives.cmake checks "<this file>:12:").
#include <vmap/vmap.hpp>
#include <cstdint>
using namespace vmap;

void scaled(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor doubled = x[i] * 2;
    out[i] = doubled * SCALE;
  }
}
