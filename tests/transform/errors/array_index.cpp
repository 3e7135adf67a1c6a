// A per-example value used as a C++ array index.
#include <vmap/vmap.hpp>
using namespace vmap;

void table_lookup(const Tensor& ids, Tensor& out) {
  const float table[4] = {1, 2, 3, 4};
#pragma vmap
  for (int64_t i = 0; i < ids.size(0); ++i)
    out[i] = table[ids[i].item<int64_t>()];
// CHECK: {{.*}}array_index.cpp:[[@LINE-1]]:14: error: per-example value used as a C++ array or pointer index, which must be the same for every example
}
