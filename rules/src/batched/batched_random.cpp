// The random factories of the batched API (Note [Randomness] in vmap/batched.hpp).
#include "batched_internal.hpp"

#include <string>
#include <vector>

namespace vmap::batched {
namespace {

using vmap::detail::IntList;

// The modes of the RandomDraws alive on this thread, innermost last.
thread_local std::vector<Randomness> modes;

// `per_example` with the level dims of a draw in front: every active level's size for
// `different`, none for `same`. `levels` is set to their number.
std::vector<int64_t> draw_sizes(const char* op, IntList per_example, int64_t& levels) {
  if (modes.empty())
    throw Error(std::string("vmap::batched::") + op +
                ": a random draw outside a loop with a randomness clause (clang-vmap opens a "
                "vb::RandomDraws for it)");
  std::vector<int64_t> sizes;
  levels = modes.back() == Randomness::different ? active_levels() : 0;
  for (int64_t level = 0; level < levels; ++level) sizes.push_back(level_size(level));
  sizes.insert(sizes.end(), per_example.begin(), per_example.end());
  return sizes;
}

// draw(sizes): the runtime's factory over the sizes of every example drawn for.
template <class Draw>
Value draws(const char* op, IntList per_example, Draw draw) {
  int64_t levels = 0;
  const std::vector<int64_t> sizes = draw_sizes(op, per_example, levels);
  return Access::make(draw(IntList(sizes)), levels, false);
}

TensorOptions like(const Value& self, TensorOptions options) {
  return TensorOptions(options.dtype_or(self.dtype())).device(options.device_or(self.device()));
}

// Uniform on [0, 1) in float64, compared with p as vmap::bernoulli does (Note [Bernoulli
// draws] in runtime/src/factories.cpp).
Value bernoulli_of(const char* op, const Value& shape_of, const Value& p, Dtype dtype) {
  const Value uniform = draws(op, shape_of.sizes(), [&](IntList sizes) {
    return vmap::rand(sizes, TensorOptions(kFloat64).device(shape_of.device()));
  });
  return uniform.lt(p).to(dtype);
}

}  // namespace

RandomDraws::RandomDraws(Randomness mode) { modes.push_back(mode); }
RandomDraws::~RandomDraws() { modes.pop_back(); }

Value rand(IntList sizes, TensorOptions options) {
  return draws("rand", sizes, [&](IntList all) { return vmap::rand(all, options); });
}
Value randn(IntList sizes, TensorOptions options) {
  return draws("randn", sizes, [&](IntList all) { return vmap::randn(all, options); });
}
Value randint(int64_t high, IntList sizes, TensorOptions options) {
  return draws("randint", sizes, [&](IntList all) { return vmap::randint(high, all, options); });
}
Value randint(int64_t low, int64_t high, IntList sizes, TensorOptions options) {
  return draws("randint", sizes,
               [&](IntList all) { return vmap::randint(low, high, all, options); });
}
Value rand_like(const Value& self, TensorOptions options) {
  return draws("rand_like", self.sizes(),
               [&](IntList all) { return vmap::rand(all, like(self, options)); });
}
Value randn_like(const Value& self, TensorOptions options) {
  return draws("randn_like", self.sizes(),
               [&](IntList all) { return vmap::randn(all, like(self, options)); });
}
Value bernoulli(const Value& p) {
  vmap::detail::check_probabilities("bernoulli", p.physical());
  return bernoulli_of("bernoulli", p, p, p.dtype());
}
Value bernoulli(const Value& self, double p) {
  vmap::detail::check_probabilities("bernoulli", p);
  return bernoulli_of("bernoulli", self, p, self.dtype());
}

}  // namespace vmap::batched
