// VMAP_BATCHED with parameter lists that do not match is an error at the macro (a
// static_assert, which a compiler without clang-vmap reports too).
#include <vmap/vmap.hpp>
using namespace vmap;

Tensor score(const Tensor& x, const Tensor& w);
Tensor score_batched(const Tensor& xs);
VMAP_BATCHED(score, score_batched);
// CHECK: {{.*}}user_rule_mismatch.cpp:[[@LINE-1]]:1: error: static assertion failed due to requirement '::vmap::detail::user_rule_arity(&score, &score_batched)': VMAP_BATCHED(score, score_batched): the two functions must take as many parameters

Tensor clip(const Tensor& x, int p);
Tensor clip_batched(int xs, int p);
VMAP_BATCHED(clip, clip_batched);
// CHECK: {{.*}}user_rule_mismatch.cpp:[[@LINE-1]]:1: error: static assertion failed due to requirement '::vmap::detail::user_rule_types(&clip, &clip_batched)': VMAP_BATCHED(clip, clip_batched): each Tensor parameter of clip must be a Tensor of clip_batched, which must return a Tensor (clip a Tensor or a number)

int main() {}

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
