// Dot products (and matrix-vector products) of Values over several vmap levels, before the
// levels are merged into one batch dim (Note [Dot products over levels]).
#include <vmap/fused.hpp>

#include "batched_fused.hpp"

#include <numeric>

namespace vmap::batched::detail {

// Note [Dot products over levels]
// x.dot(y) under several levels, each operand varying over its own subset of them:
// `x[i].dot(y[j])` of a pairwise loop varies over level 0 in x and level 1 in y. Merged into
// one batch dim (Note [Levels to one batch dim]) both operands would be expanded to every
// (i, j) pair, an [n, m, d] copy each, and multiplied as n * m tiny products. Instead each
// level is sorted by which operands vary along it:
//   shared: both (each example has its own pair of vectors),
//   x only / y only: one of them (the rows / the columns of a product),
//   neither: the result stays size 1 along it,
// and the dot is one runtime matmul (a GEMM on OpenBLAS) [shared, x-only (* rows of x), d] @
// [shared, d, y-only], its dims permuted back into level order. So `x[i].dot(y[j])` is
// x @ y^T, and `x[i].dot(x[i])` under levels i and j is n dots, not n * m. Where no level
// is x-only or y-only, a matmul would be a batch of 1 x 1 products: the elements' products
// are summed per example by the compiled reduction instead (Note [Compiled fusion]; a
// pending operand's chain block by block, Note [Pending values]), with no product tensor.
// `mv` and `matmul` of a matrix or a vector by a vector take the same path. Per-example
// results equal the eager dot's up to the order of the additions.
std::optional<Value> dot_over_levels(rules::RuleId rule, const Value& x, const Value& y) {
  const int64_t levels = std::max(x.levels(), y.levels());
  if (levels == 0 || !x.defined() || !y.defined() || x.is_cpp_scalar() || y.is_cpp_scalar())
    return std::nullopt;
  // Anything else takes the rule, with its checks and messages.
  const Dtype dtype = x.dtype();
  if (y.dtype() != dtype || (dtype != kFloat32 && dtype != kFloat64)) return std::nullopt;
  if (placed_on(x) != placed_on(y)) return std::nullopt;
  const int64_t x_rank = x.dim();
  const bool ranks_fit = rule == rules::RuleId::dot  ? x_rank == 1
                         : rule == rules::RuleId::mv ? x_rank == 2
                                                     : x_rank == 1 || x_rank == 2;
  if (!ranks_fit || y.dim() != 1 || x.size(-1) != y.size(0)) return std::nullopt;

  const auto level_size = [](const Value& v, int64_t level) {
    return level < v.levels() ? Access::physical_sizes(v)[static_cast<std::size_t>(level)] : 1;
  };
  std::vector<int64_t> shared, x_only, y_only, neither;
  for (int64_t level = 0; level < levels; ++level) {
    const int64_t x_size = level_size(x, level), y_size = level_size(y, level);
    if (x_size != 1 && y_size != 1 && x_size != y_size) return std::nullopt;  // dispatch's error
    (x_size != 1 ? (y_size != 1 ? shared : x_only) : (y_size != 1 ? y_only : neither))
        .push_back(level);
  }
  if (x_only.empty() && y_only.empty()) {
    const profile::detail::OpScope profiled("dot (summed products)");
    if (Access::pending(x) || Access::pending(y))
      return x_rank == 1 ? (x * y).sum() : (x * y).sum(-1);
    const auto products = fused([](const auto& a, const auto& b) { return a * b; }, x, y);
    return x_rank == 1 ? products.sum() : products.sum(-1);
  }

  const profile::detail::OpScope profiled("dot (matmul)");
  const Tensor a = x.aligned(levels), b = y.aligned(levels);  // [levels..., (rows,) d]
  const int64_t rows = levels;                                // x's rows dim, if any
  const auto concat = [](std::initializer_list<const std::vector<int64_t>*> parts) {
    std::vector<int64_t> all;
    for (const auto* part : parts) all.insert(all.end(), part->begin(), part->end());
    return all;
  };
  const auto size_product = [](const Tensor& t, const std::vector<int64_t>& dims) {
    int64_t product = 1;
    for (int64_t dim : dims) product *= t.size(dim);
    return product;
  };
  const std::vector<int64_t> rows_dim =
      x_rank == 2 ? std::vector<int64_t>{rows} : std::vector<int64_t>{};
  const std::vector<int64_t> inner{a.dim() - 1};
  // The result's dims, in the order the matmul lays them out; size 1 along y-only and
  // neither levels in a, along x-only and neither levels in b.
  const std::vector<int64_t> x_dims = concat({&x_only, &rows_dim});
  const std::vector<int64_t> order = concat({&shared, &x_dims, &y_only, &neither});
  const int64_t batch = size_product(a, shared);
  const Tensor a3 = a.permute(concat({&shared, &x_dims, &y_only, &neither, &inner}))
                        .reshape({batch, size_product(a, x_dims), a.size(-1)});
  const std::vector<int64_t> b_inner{b.dim() - 1};
  const Tensor b3 = b.permute(concat({&shared, &y_only, &x_only, &neither, &b_inner}))
                        .reshape({batch, size_product(b, y_only), b.size(-1)});
  std::vector<int64_t> sizes;
  for (int64_t dim : order)
    sizes.push_back(dim < levels && a.size(dim) == 1 ? b.size(dim) : a.size(dim));  // 0 too
  const Tensor product = a3.matmul(b3.transpose(1, 2)).reshape(sizes);
  // Back into level order, x's rows (the result's one example dim) last.
  std::vector<int64_t> back(order.size());
  for (std::size_t position = 0; position < order.size(); ++position)
    back[static_cast<std::size_t>(order[position])] = static_cast<int64_t>(position);
  return Access::make(product.permute(back), levels, false);
}

}  // namespace vmap::batched::detail
