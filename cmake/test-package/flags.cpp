// The loop the compiler compiles depends on the whole compile command: NDEBUG from
// CMAKE_CXX_FLAGS_RELEASE, TINY_FROM_CXX_FLAGS from CMAKE_CXX_FLAGS, TINY_FROM_OPTIONS
// from target_compile_options and TINY_FROM_SOURCE from the source's own definitions.
// Each branch not compiled has its own loop, so a tool that saw other flags rewrites
// the wrong one (and the right one reaches the compiler with its pragma: an error).
#include <tiny/model.hpp>

using namespace vmap;

#if !defined(TINY_FROM_CXX_FLAGS) || !defined(TINY_FROM_OPTIONS) || !defined(TINY_FROM_SOURCE)
#error "a flag of the compile command is missing"
#endif

int64_t tiny::flag_rows(const Tensor& x, Tensor& out) {
#ifdef NDEBUG
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * (TINY_FROM_CXX_FLAGS + TINY_FROM_OPTIONS + TINY_FROM_SOURCE);
  return 1;
#else
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] - 1;
  return 0;
#endif
}
