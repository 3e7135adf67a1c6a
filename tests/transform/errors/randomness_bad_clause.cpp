// A clause of '#pragma vmap' other than randomness(different) / randomness(same) is an
// error at the clause naming the valid ones (a bare word stays a warning, reports_test).
#include <vmap/vmap.hpp>
using namespace vmap;

void often(const Tensor& x, Tensor& out) {
#pragma vmap randomness(often)
// CHECK: {{.*}}randomness_bad_clause.cpp:[[@LINE-1]]:14: error: invalid clause 'randomness(often)' in '#pragma vmap': the clauses are 'randomness(different)' and 'randomness(same)'
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + rand_like(x[i]);
}

void misspelt(const Tensor& x, Tensor& out) {
#pragma vmap randomnes(same)
// CHECK: {{.*}}randomness_bad_clause.cpp:[[@LINE-1]]:14: error: invalid clause 'randomnes(same)' in '#pragma vmap'
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + rand_like(x[i]);
}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
