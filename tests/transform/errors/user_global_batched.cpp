// A global-namespace `batched` used unqualified under `using namespace vmap;`: the rewrite
// includes <vmap/batched.hpp>, whose namespace vmap::batched would make the use ambiguous,
// so the file is refused at the use (README: what it refuses) instead of being rewritten
// into code that does not compile. `::batched`, or a namespace of one's own, builds
// (user_names_in_every_scope.cpp).
#include <vmap/vmap.hpp>
using namespace vmap;

float batched = 2.0f;

void scale(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * ::batched;  // qualified: fine
  out[0] = out[0] + batched;
// CHECK: {{.*}}user_global_batched.cpp:[[@LINE-1]]:21: error: 'batched' refers to the global 'batched'; the rewritten file includes <vmap/batched.hpp>, whose namespace 'vmap::batched' makes it ambiguous under 'using namespace vmap;'
// CHECK: note: write '::batched', or declare it in a namespace of your own; the file is not rewritten
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
