// Nine nested vmap loops: a batched value holds one dim per level besides the
// example's own, and runtime tensors have at most 16 dims, so the tool allows 8 levels
// (issue 18: 16 levels were rewritten into a program that threw at run time).
#include <vmap/vmap.hpp>
using namespace vmap;

void nine(const Tensor& x, Tensor& out) {
  #pragma vmap
  for (int64_t i0 = 0; i0 < x.size(0); ++i0)
    #pragma vmap
    for (int64_t i1 = 0; i1 < x.size(1); ++i1)
      #pragma vmap
      for (int64_t i2 = 0; i2 < x.size(2); ++i2)
        #pragma vmap
        for (int64_t i3 = 0; i3 < x.size(3); ++i3)
          #pragma vmap
          for (int64_t i4 = 0; i4 < x.size(4); ++i4)
            #pragma vmap
            for (int64_t i5 = 0; i5 < x.size(5); ++i5)
              #pragma vmap
              for (int64_t i6 = 0; i6 < x.size(6); ++i6)
                #pragma vmap
                for (int64_t i7 = 0; i7 < x.size(7); ++i7)
                  #pragma vmap
                  for (int64_t i8 = 0; i8 < x.size(8); ++i8)
// CHECK: {{.*}}too_many_levels.cpp:[[@LINE-1]]:19: error: 9 nested vmap loops: at most 8 are supported
// CHECK: note: remove '#pragma vmap' from the innermost loops
                    out[i0][i1][i2][i3][i4][i5][i6][i7][i8] = x[i0][i1][i2][i3][i4][i5][i6][i7][i8] * 2;
}
// CHECK: 1 error generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
