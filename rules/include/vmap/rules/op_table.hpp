// The op table: the single source of truth for which runtime ops exist (SPEC sections 4, 6),
// how each is spelled, what each argument position holds, and which batching rule
// batches it. Header-only, standard library and the pointwise op list (a macro list,
// vmap/detail/pointwise_ops.def) only: the clang tool (transform/) reads it
// at compile time; rules/ registers one rule per entry (static_assert in registry.cpp);
// the rule tests iterate it.
//
// Note [Op table conventions]
// - One entry per op *form* the user can write: `sum()` and `sum(dim, keepdim)` are two
//   entries; a member and the free function of the same name are two entries.
// - `params` lists the argument positions as the user writes them, with the object first
//   for members and the left operand first for operators: `x.index_select(0, idx)` is
//   {tensor, dim, index_tensor}; `a + b` is {operand, operand}.
// - Positions from `required` on have LibTorch defaults and may be left out.
// - A `dim`/`dim_list` position shifts under a batch dim; `shape` is a per-example shape
//   (the batch size is prepended); `index` is a position that may be a per-example integer
//   (an induction variable or a data-dependent scalar), which turns the op into a gather.
// - `operand` is a tensor or a C++ scalar (a wrapped number in ATen's promotion).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace vmap::rules {

// What one argument position holds.
enum class ArgKind : std::uint8_t {
  tensor,       // a Tensor
  operand,      // a Tensor or a C++ scalar
  tensor_list,  // std::vector<Tensor> / braced list (cat, stack)
  dim,          // int64 dimension of the per-example tensor (negative counts from the end)
  dim_list,     // list of dims (permute, sum over several dims)
  shape,        // per-example shape (expand, reshape, view)
  index,        // int64 position that may vary per example (select, operator[], narrow start)
  integer,      // other loop-invariant int64 (narrow length, triu diagonal, seed)
  number,       // loop-invariant C++ number (softplus's beta, norm's p)
  alpha,        // add/sub's alpha: the rule takes one number for every example, the
                // batched API takes a per-example one apart (Note [Per-example alpha])
  scalar,       // C++ number, may vary per example (fill_, clamp bounds, full value)
  keepdim,      // bool flag
  text,         // loop-invariant string (gelu's approximate, div's rounding_mode)
  conversion,   // a dtype or a device (to)
  options,      // TensorOptions (factories)
  pointer,      // raw pointer (from_blob)
  nested_list,  // braced literal (tensor({...}))
};

// How the user spells a call of the op.
enum class OpForm : std::uint8_t {
  free_function,    // add(a, b)
  member,           // a.add(b) -- params[0] is the object
  binary_operator,  // a + b
  unary_operator,   // -a, !a
  compound_assign,  // a += b -- writes into params[0]
  inplace_member,   // a.copy_(b) -- writes into params[0]
};

// What kind of op an entry is, for readers of the table and for the few passes that ask:
// the tool's analyses ask for metadata, reduce, index, linalg, inplace and refused entries,
// the generated and property tests for factory, views, index, linalg and inplace ones.
// It decides nothing else: `rule` picks the batching rule, and the rule how the batched API
// aligns the operands' batch levels (src/batched/batched_value.cpp).
enum class Family : std::uint8_t {
  metadata,   // dim(), sizes(): the same for every example
  unary,      // pointwise, one tensor (clamp: its bounds are numbers)
  binary,     // pointwise, broadcasting operands (with promotion)
  reduce,     // reductions over dims
  views,      // results alias the input
  index,      // gather / index_select / select with per-example index
  linalg,     // matmul family
  along_dim,  // along one dim d, each example's shape kept but along d: softmax,
              // log_softmax, cumsum, cumprod, sort, argsort, topk
  last_dims,  // on the last dims of each example: triu, tril; one_hot (a new last dim)
  factory,    // *_like and factories
  inplace,    // writes into its first argument
  scalar,     // item<T>() and conversions to C++ scalars
  refused,    // cannot be batched (I/O, raw pointers, shared random state)
};

// Which rule batches the op. registry.cpp maps every RuleId used in the table to a rule.
enum class RuleId : std::uint8_t {
  metadata,          // logical metadata of the per-example tensor
  unary_pointwise,   // f(x) elementwise; bdim passes through
  binary_pointwise,  // f(a, b) with broadcasting and logical-rank promotion
  ternary_where,     // where(cond, a, b)
  clamp,             // clamp(x, lo, hi) with scalar bounds
  convert,           // to / contiguous / clone
  reduce_all,        // sum(), mean(), any(), all(): over all logical dims
  reduce_dim,        // sum(d, keepdim), amax(d, keepdim) ...
  reduce_dims,       // sum({d0, d1}, keepdim), var({d}, unbiased, keepdim), norm(p, {d})
  arg_reduce_all,    // argmax() over the flattened example
  compare_all,       // equal(a, b), allclose(a, b, rtol, atol)
  masked_fill,       // masked_fill(x, mask, value): where(mask, value, x) in x's dtype
  lerp,              // lerp(start, end, weight): ternary pointwise, weight a wrapped number
  along_dim,         // softmax(x, d), log_softmax, cumsum, cumprod, sort, argsort: along d
  topk,              // topk(x, k, d): along d (a 0-d example is its own top element)
  one_hot,           // one_hot(x, num_classes): a new last dim, the inferred count uniform
  triangular,        // triu / tril (x, diagonal)
  select,            // select(d, i) / operator[](i)
  narrow,            // narrow(d, start, length)
  unsqueeze,
  squeeze_all,
  squeeze_dim,
  expand,
  expand_as,  // x.expand_as(other): other's per-example shape
  reshape,  // reshape / view
  transpose,
  t,
  permute,
  movedim,
  flatten,
  index_select,
  gather,
  matmul,
  mm,
  mv,
  bmm,
  dot,
  linear,
  cat,
  stack,
  like_factory,  // zeros_like / ones_like / empty_like
  full_like,
  full,            // full(shape, v): v may vary per example; the shape is loop-invariant
  tensor_literal,  // tensor({a, b, ...}): the numbers may vary per example
  copy_into,        // copy_(src)
  fill_into,        // fill_(v) / zero_()
  compound_assign,  // += -= *= /=
  item,             // item<T>()
  loop_invariant,   // factories: every argument must be loop-invariant; result unbatched
  refused,          // no batched meaning (see Family::refused)
};

inline constexpr std::size_t kMaxParams = 5;

struct OpEntry {
  std::string_view name;  // as spelled: "add", "operator+", "operator+=", "copy_"
  OpForm form;
  Family family;
  RuleId rule;
  std::array<ArgKind, kMaxParams> params{};
  std::uint8_t arity = 0;     // number of used positions in params
  std::uint8_t required = 0;  // positions [required, arity) have defaults
  bool returns_view = false;  // the result aliases params[0]
  bool random = false;        // a random factory: draws from the shared generator state
  // The op returns std::tuple(values, indices) (sort, topk); the entry, its binding and its
  // rule are the indices, and the values are x.gather(dim, indices) (Note [Sorting] in
  // runtime/src/ops_sort.cpp).
  bool values_and_indices = false;

  constexpr ArgKind param(std::size_t position) const { return params[position]; }
  constexpr bool is_member_like() const {
    return form == OpForm::member || form == OpForm::inplace_member ||
           form == OpForm::compound_assign;
  }
  constexpr bool writes_first_argument() const {
    return form == OpForm::inplace_member || form == OpForm::compound_assign;
  }
};

namespace table_detail {

struct Optional {
  std::size_t defaulted;  // how many trailing params have defaults
};

constexpr OpEntry make(std::string_view name, OpForm form, Family family, RuleId rule,
                       std::initializer_list<ArgKind> params, Optional optional = {0},
                       bool returns_view = false) {
  OpEntry entry{name, form, family, rule};
  for (ArgKind kind : params) entry.params[entry.arity++] = kind;
  entry.required = static_cast<std::uint8_t>(entry.arity - optional.defaulted);
  entry.returns_view = returns_view;
  return entry;
}

using enum ArgKind;
using enum OpForm;
using F = Family;
using R = RuleId;
inline constexpr bool view = true;

constexpr OpEntry unary_free(std::string_view name) {
  return make(name, free_function, F::unary, R::unary_pointwise, {tensor});
}
constexpr OpEntry unary_member(std::string_view name) {
  return make(name, member, F::unary, R::unary_pointwise, {tensor});
}
// name(a, b): `operands` are tensors or C++ numbers where LibTorch has Scalar overloads, else
// tensors (maximum, minimum, logical_and, logical_or).
constexpr OpEntry binary_free(std::string_view name, ArgKind operands = operand) {
  return make(name, free_function, F::binary, R::binary_pointwise, {operands, operands});
}
constexpr OpEntry binary_op(std::string_view name) {
  return make(name, binary_operator, F::binary, R::binary_pointwise, {operand, operand});
}
// x.name(other): the free form's rule with the object as its first operand. `other` is an
// operand where LibTorch has a Scalar overload, else a tensor.
constexpr OpEntry binary_member(std::string_view name, ArgKind other = operand) {
  return make(name, member, F::binary, R::binary_pointwise, {tensor, other});
}
// add / sub with LibTorch's alpha: a + alpha * b.
constexpr OpEntry alpha_free(std::string_view name) {
  return make(name, free_function, F::binary, R::binary_pointwise, {operand, operand, alpha},
              Optional{1});
}
constexpr OpEntry alpha_member(std::string_view name) {
  return make(name, member, F::binary, R::binary_pointwise, {tensor, operand, alpha},
              Optional{1});
}

// rand / randn / randint / rand_like / randn_like / bernoulli / manual_seed: no rule (each
// example would draw anew from one shared state). In a loop with a randomness clause the
// draws become vb::'s random factories (Note [Randomness] in vmap/batched.hpp); manual_seed
// stays refused.
constexpr OpEntry random_factory(std::string_view name, std::initializer_list<ArgKind> params,
                                 Optional optional = {0}) {
  OpEntry entry = make(name, free_function, F::refused, R::refused, params, optional);
  entry.random = true;
  return entry;
}

// sort / topk: (values, indices), the entry the indices (OpEntry::values_and_indices).
constexpr OpEntry values_and_indices(OpEntry entry) {
  entry.values_and_indices = true;
  return entry;
}

}  // namespace table_detail

// clang-format off
inline constexpr auto kOpTable = [] {
  using namespace table_detail;
  return std::array{
    // --- metadata members: identical for every example ---
    make("dim",           member, F::metadata, R::metadata, {tensor}),
    make("size",          member, F::metadata, R::metadata, {tensor, dim}),
    make("sizes",         member, F::metadata, R::metadata, {tensor}),
    make("numel",         member, F::metadata, R::metadata, {tensor}),
    make("dtype",         member, F::metadata, R::metadata, {tensor}),
    make("scalar_type",   member, F::metadata, R::metadata, {tensor}),
    make("device",        member, F::metadata, R::metadata, {tensor}),
    make("is_contiguous", member, F::metadata, R::metadata, {tensor}),
    // --- conversions ---
    make("contiguous",    member, F::unary, R::convert, {tensor}),
    make("clone",         member, F::unary, R::convert, {tensor}),
    make("to",            member, F::unary, R::convert, {tensor, conversion}),
    make("item",          member, F::scalar, R::item, {tensor}),
    make("data_ptr",      member, F::refused, R::refused, {tensor}),
    // --- unary pointwise ---
    unary_member("abs"), unary_member("neg"), unary_member("logical_not"),
    unary_free("neg"), unary_free("abs"), unary_free("logical_not"),
    // --- the pointwise op list (Note [Pointwise op list]): member and free form of each, and
    // a comparison's operator ---
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) unary_member(#name), unary_free(#name),
#define VMAP_BINARY_OP(name, Functor, domain) binary_member(#name), binary_free(#name),
#define VMAP_COMPARISON_OP(name, Functor, symbol) \
    VMAP_BINARY_OP(name, Functor, comparison) binary_op("operator" #symbol),
#include <vmap/detail/pointwise_ops.def>
    make("operator-", unary_operator, F::unary, R::unary_pointwise, {tensor}),
    make("operator!", unary_operator, F::unary, R::unary_pointwise, {tensor}),
    // --- binary pointwise (broadcasting, promotion with logical ranks) ---
    binary_op("operator+"), binary_op("operator-"), binary_op("operator*"), binary_op("operator/"),
    binary_op("operator&"), binary_op("operator|"),
    binary_op("operator%"),  // remainder (LibTorch's: the sign of the divisor)
    alpha_free("add"), alpha_free("sub"), binary_free("mul"), binary_free("div"),
    binary_free("pow"), binary_free("maximum", tensor), binary_free("minimum", tensor),
    binary_free("logical_and", tensor), binary_free("logical_or", tensor),
    alpha_member("add"), alpha_member("sub"), binary_member("mul"), binary_member("div"),
    binary_member("pow"), binary_member("maximum", tensor), binary_member("minimum", tensor),
    binary_member("logical_and", tensor), binary_member("logical_or", tensor),
    make("div",     free_function, F::binary, R::binary_pointwise, {operand, operand, text}),
    make("div",     member, F::binary, R::binary_pointwise, {tensor, operand, text}),
    make("where",   free_function, F::binary, R::ternary_where, {tensor, operand, operand}),
    make("clamp",   member, F::unary, R::clamp, {tensor, scalar, scalar}),
    make("clamp",   free_function, F::unary, R::clamp, {tensor, scalar, scalar}),
    // --- reductions ---
    make("sum",     member, F::reduce, R::reduce_all, {tensor}),
    make("sum",     member, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("sum",     member, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim}, Optional{1}),
    make("mean",    member, F::reduce, R::reduce_all, {tensor}),
    make("mean",    member, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("mean",    member, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim}, Optional{1}),
    make("amax",    member, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim}, Optional{1}),
    make("amin",    member, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim}, Optional{1}),
    make("argmax",  member, F::reduce, R::arg_reduce_all, {tensor}),
    make("argmax",  member, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("argmin",  member, F::reduce, R::arg_reduce_all, {tensor}),
    make("argmin",  member, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("any",     member, F::reduce, R::reduce_all, {tensor}),
    make("any",     member, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("all",     member, F::reduce, R::reduce_all, {tensor}),
    make("all",     member, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("sum",     free_function, F::reduce, R::reduce_all, {tensor}),
    make("sum",     free_function, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("sum",     free_function, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim}, Optional{1}),
    make("mean",    free_function, F::reduce, R::reduce_all, {tensor}),
    make("mean",    free_function, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("mean",    free_function, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim}, Optional{1}),
    make("amax",    free_function, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim}, Optional{1}),
    make("amin",    free_function, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim}, Optional{1}),
    make("argmax",  free_function, F::reduce, R::arg_reduce_all, {tensor}),
    make("argmax",  free_function, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("argmin",  free_function, F::reduce, R::arg_reduce_all, {tensor}),
    make("argmin",  free_function, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("any",     free_function, F::reduce, R::reduce_all, {tensor}),
    make("any",     free_function, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("all",     free_function, F::reduce, R::reduce_all, {tensor}),
    make("all",     free_function, F::reduce, R::reduce_dim, {tensor, dim, keepdim}, Optional{1}),
    make("equal",   free_function, F::reduce, R::compare_all, {tensor, tensor}),
    make("allclose", free_function, F::reduce, R::compare_all,
         {tensor, tensor, scalar, scalar}, Optional{2}),
    // --- scans, statistics, masking (SPEC section 6) ---
    make("cumsum",    member, F::along_dim, R::along_dim, {tensor, dim}),
    make("cumsum",    free_function, F::along_dim, R::along_dim, {tensor, dim}),
    make("cumprod",   member, F::along_dim, R::along_dim, {tensor, dim}),
    make("cumprod",   free_function, F::along_dim, R::along_dim, {tensor, dim}),
    make("logsumexp", member, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim}, Optional{1}),
    make("logsumexp", free_function, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim}, Optional{1}),
    make("var",       member, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim, keepdim}, Optional{2}),
    make("var",       free_function, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim, keepdim}, Optional{2}),
    make("std",       member, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim, keepdim}, Optional{2}),
    make("std",       free_function, F::reduce, R::reduce_dims, {tensor, dim_list, keepdim, keepdim}, Optional{2}),
    make("norm",      member, F::reduce, R::reduce_dims, {tensor, number, dim_list, keepdim}, Optional{1}),
    make("norm",      free_function, F::reduce, R::reduce_dims, {tensor, number, dim_list, keepdim}, Optional{1}),
    make("masked_fill", member, F::binary, R::masked_fill, {tensor, tensor, operand}),
    make("masked_fill", free_function, F::binary, R::masked_fill, {tensor, tensor, operand}),
    make("lerp",      member, F::binary, R::lerp, {tensor, tensor, operand}),
    make("lerp",      free_function, F::binary, R::lerp, {tensor, tensor, operand}),
    // --- sorting (SPEC section 6; Note [Sorting]), one_hot
    values_and_indices(make("sort", member, F::along_dim, R::along_dim, {tensor, dim, keepdim}, Optional{2})),
    values_and_indices(make("sort", free_function, F::along_dim, R::along_dim, {tensor, dim, keepdim}, Optional{2})),
    make("argsort",   member, F::along_dim, R::along_dim, {tensor, dim, keepdim}, Optional{2}),
    make("argsort",   free_function, F::along_dim, R::along_dim, {tensor, dim, keepdim}, Optional{2}),
    values_and_indices(make("topk", member, F::along_dim, R::topk, {tensor, integer, dim, keepdim, keepdim}, Optional{3})),
    values_and_indices(make("topk", free_function, F::along_dim, R::topk, {tensor, integer, dim, keepdim, keepdim}, Optional{3})),
    make("one_hot",   free_function, F::last_dims, R::one_hot, {tensor, integer}, Optional{1}),
    // --- activations with parameters (LibTorch: free functions only) ---
    make("gelu",      free_function, F::unary, R::unary_pointwise, {tensor, text}, Optional{1}),
    make("softplus",  free_function, F::unary, R::unary_pointwise, {tensor, number, number}, Optional{2}),
    // --- along one dim; the last dims ---
    make("softmax",     free_function, F::along_dim, R::along_dim, {tensor, dim}),
    make("softmax",     member, F::along_dim, R::along_dim, {tensor, dim}),
    make("log_softmax", free_function, F::along_dim, R::along_dim, {tensor, dim}),
    make("log_softmax", member, F::along_dim, R::along_dim, {tensor, dim}),
    make("triu",        free_function, F::last_dims, R::triangular, {tensor, integer}, Optional{1}),
    make("tril",        free_function, F::last_dims, R::triangular, {tensor, integer}, Optional{1}),
    make("triu",        member, F::last_dims, R::triangular, {tensor, integer}, Optional{1}),
    make("tril",        member, F::last_dims, R::triangular, {tensor, integer}, Optional{1}),
    // --- views ---
    make("operator[]", member, F::views, R::select, {tensor, index}, {}, view),
    make("select",     member, F::views, R::select, {tensor, dim, index}, {}, view),
    make("narrow",     member, F::views, R::narrow, {tensor, dim, index, integer}, {}, view),
    make("unsqueeze",  member, F::views, R::unsqueeze, {tensor, dim}, {}, view),
    make("squeeze",    member, F::views, R::squeeze_all, {tensor}, {}, view),
    make("squeeze",    member, F::views, R::squeeze_dim, {tensor, dim}, {}, view),
    make("expand",     member, F::views, R::expand, {tensor, shape}, {}, view),
    make("expand_as",  member, F::views, R::expand_as, {tensor, tensor}, {}, view),
    make("reshape",    member, F::views, R::reshape, {tensor, shape}, {}, view),
    make("view",       member, F::views, R::reshape, {tensor, shape}, {}, view),
    make("transpose",  member, F::views, R::transpose, {tensor, dim, dim}, {}, view),
    make("t",          member, F::views, R::t, {tensor}, {}, view),
    make("permute",    member, F::views, R::permute, {tensor, dim_list}, {}, view),
    make("flatten",    member, F::views, R::flatten, {tensor, dim, dim}, Optional{2}, view),
    make("movedim",    member, F::views, R::movedim, {tensor, dim, dim}, {}, view),
    make("movedim",    member, F::views, R::movedim, {tensor, dim_list, dim_list}, {}, view),
    make("narrow",     free_function, F::views, R::narrow, {tensor, dim, index, integer}, {}, view),
    make("unsqueeze",  free_function, F::views, R::unsqueeze, {tensor, dim}, {}, view),
    make("squeeze",    free_function, F::views, R::squeeze_all, {tensor}, {}, view),
    make("squeeze",    free_function, F::views, R::squeeze_dim, {tensor, dim}, {}, view),
    make("expand",     free_function, F::views, R::expand, {tensor, shape}, {}, view),
    make("reshape",    free_function, F::views, R::reshape, {tensor, shape}, {}, view),
    make("transpose",  free_function, F::views, R::transpose, {tensor, dim, dim}, {}, view),
    make("permute",    free_function, F::views, R::permute, {tensor, dim_list}, {}, view),
    make("movedim",    free_function, F::views, R::movedim, {tensor, dim, dim}, {}, view),
    make("movedim",    free_function, F::views, R::movedim, {tensor, dim_list, dim_list}, {}, view),
    make("flatten",    free_function, F::views, R::flatten, {tensor, dim, dim}, Optional{2}, view),
    // --- indexing ---
    make("index_select", member, F::index, R::index_select, {tensor, dim, tensor}),
    make("gather",       member, F::index, R::gather, {tensor, dim, tensor}),
    make("index_select", free_function, F::index, R::index_select, {tensor, dim, tensor}),
    make("gather",       free_function, F::index, R::gather, {tensor, dim, tensor}),
    // --- linear algebra: one batched GEMM each ---
    make("matmul", member, F::linalg, R::matmul, {tensor, tensor}),
    make("matmul", free_function, F::linalg, R::matmul, {tensor, tensor}),
    make("mm",     free_function, F::linalg, R::mm, {tensor, tensor}),
    make("mv",     free_function, F::linalg, R::mv, {tensor, tensor}),
    make("bmm",    free_function, F::linalg, R::bmm, {tensor, tensor}),
    make("dot",    free_function, F::linalg, R::dot, {tensor, tensor}),
    make("mm",     member, F::linalg, R::mm, {tensor, tensor}),
    make("mv",     member, F::linalg, R::mv, {tensor, tensor}),
    make("bmm",    member, F::linalg, R::bmm, {tensor, tensor}),
    make("dot",    member, F::linalg, R::dot, {tensor, tensor}),
    make("linear", free_function, F::linalg, R::linear, {tensor, tensor, tensor}, Optional{1}),
    // --- joining ---
    make("cat",   free_function, F::views, R::cat, {tensor_list, dim}, Optional{1}),
    make("stack", free_function, F::views, R::stack, {tensor_list, dim}, Optional{1}),
    // --- *_like ---
    make("zeros_like", free_function, F::factory, R::like_factory, {tensor, options}, Optional{1}),
    make("ones_like",  free_function, F::factory, R::like_factory, {tensor, options}, Optional{1}),
    make("empty_like", free_function, F::factory, R::like_factory, {tensor, options}, Optional{1}),
    make("full_like",  free_function, F::factory, R::full_like, {tensor, scalar, options},
         Optional{1}),
    // --- in place: write into a batched place ---
    make("copy_",      inplace_member, F::inplace, R::copy_into, {tensor, tensor}),
    make("fill_",      inplace_member, F::inplace, R::fill_into, {tensor, operand}),
    make("zero_",      inplace_member, F::inplace, R::fill_into, {tensor}),
    make("operator+=", compound_assign, F::inplace, R::compound_assign, {tensor, operand}),
    make("operator-=", compound_assign, F::inplace, R::compound_assign, {tensor, operand}),
    make("operator*=", compound_assign, F::inplace, R::compound_assign, {tensor, operand}),
    make("operator/=", compound_assign, F::inplace, R::compound_assign, {tensor, operand}),
    // --- factories: loop-invariant arguments only; the random ones share state ---
    make("zeros",    free_function, F::factory, R::loop_invariant, {shape, options}, Optional{1}),
    make("ones",     free_function, F::factory, R::loop_invariant, {shape, options}, Optional{1}),
    make("empty",    free_function, F::factory, R::loop_invariant, {shape, options}, Optional{1}),
    make("full",     free_function, F::factory, R::full, {shape, scalar, options}, Optional{1}),
    make("arange",   free_function, F::factory, R::loop_invariant, {scalar, options}, Optional{1}),
    make("arange",   free_function, F::factory, R::loop_invariant,
         {scalar, scalar, scalar, options}, Optional{2}),
    make("tensor",   free_function, F::factory, R::tensor_literal, {nested_list, options}, Optional{1}),
    make("from_blob", free_function, F::refused, R::refused, {pointer, shape, options}, Optional{1}),
    random_factory("rand",    {shape, options}, Optional{1}),
    random_factory("randn",   {shape, options}, Optional{1}),
    random_factory("randint", {integer, integer, shape, options}, Optional{1}),
    random_factory("rand_like",  {tensor, options}, Optional{1}),
    random_factory("randn_like", {tensor, options}, Optional{1}),
    random_factory("bernoulli",  {tensor}),
    random_factory("bernoulli",  {tensor, number}),
    random_factory("manual_seed", {integer}),
    make("operator<<", binary_operator, F::refused, R::refused, {operand, tensor}),
  };
}();
// clang-format on

// The entries of the pointwise op list: a member and a free function each, and a
// comparison's operator.
inline constexpr std::size_t kPointwiseListEntries =
    0
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) +2
#define VMAP_BINARY_OP(name, Functor, domain) +2
#define VMAP_COMPARISON_OP(name, Functor, symbol) VMAP_BINARY_OP(name, Functor, comparison) + 1
#include <vmap/detail/pointwise_ops.def>
    ;
// Update this when adding an op outside the pointwise op list: the registry (registry.cpp)
// and the SPEC-coverage test check the same number.
static_assert(kOpTable.size() == 190 + kPointwiseListEntries,
              "op table changed: update the count, registry and README");

inline constexpr std::size_t kNoOp = static_cast<std::size_t>(-1);

// First entry with this spelling and form (and arity, when given), or kNoOp.
constexpr std::size_t find_op(std::string_view name, OpForm form, int arity = -1) {
  for (std::size_t i = 0; i < kOpTable.size(); ++i) {
    const OpEntry& entry = kOpTable[i];
    if (entry.name != name || entry.form != form) continue;
    if (arity < 0 || (arity >= entry.required && arity <= entry.arity)) return i;
  }
  return kNoOp;
}

// The entry with this spelling, form and exact parameter kinds (for overloads that differ
// only in kind, e.g. sum(dim) vs sum(dims)), or kNoOp.
constexpr std::size_t find_op(std::string_view name, OpForm form,
                              std::initializer_list<ArgKind> params) {
  for (std::size_t i = 0; i < kOpTable.size(); ++i) {
    const OpEntry& entry = kOpTable[i];
    if (entry.name != name || entry.form != form || entry.arity != params.size()) continue;
    std::size_t position = 0;
    bool same = true;
    for (ArgKind kind : params) same = same && entry.params[position++] == kind;
    if (same) return i;
  }
  return kNoOp;
}

// Note [Compiled fusion] (rules/include/vmap/fused.hpp): the pointwise ops a fused kernel
// computes on one element (vmap::batched::Element in vmap/fused_element.hpp): every op of the
// pointwise op list, which fused_element.hpp defines from the list, and these, which it writes
// out (Note [Pointwise ops outside the list] in rules/src/batched/batched_ops.cpp says why).
// vmap_generate_op_table_checks checks that Element has every form of the op table's entries
// of both (Note [Every entry has every layer]). Other pointwise entries (gelu, softplus, lerp,
// `%` on tensors...) stay batched ops: the tool does not fuse them.
inline constexpr std::string_view kWrittenOutElementOps[] = {
    "neg", "abs", "logical_not", "pow", "clamp", "where", "add", "sub", "mul", "div",
    "maximum", "minimum", "logical_and", "logical_or", "operator+", "operator-", "operator*",
    "operator/", "operator&", "operator|", "operator!"};
constexpr bool has_element_form(std::string_view name) {
  for (std::string_view op : kWrittenOutElementOps)
    if (op == name) return true;
#define VMAP_UNARY_OP(op, Functor, domain, simd, cost) \
  if (name == #op) return true;
#define VMAP_BINARY_OP(op, Functor, domain) \
  if (name == #op) return true;
#define VMAP_COMPARISON_OP(op, Functor, symbol) \
  if (name == #op || name == "operator" #symbol) return true;
#include <vmap/detail/pointwise_ops.def>
  return false;
}

constexpr bool has_op(std::string_view name) {
  for (const OpEntry& entry : kOpTable)
    if (entry.name == name) return true;
  return false;
}

// The clang tool's questions about an op, by the name it is called with.

// x.name(...) returns a view of x (select, narrow, reshape...).
constexpr bool is_view_member(std::string_view name) {
  for (const OpEntry& entry : kOpTable)
    if (entry.name == name && entry.form == OpForm::member && entry.returns_view) return true;
  return false;
}

// x.name(...) (or x op= y) writes into x.
constexpr bool writes_object(std::string_view name) {
  for (const OpEntry& entry : kOpTable)
    if (entry.name == name && entry.writes_first_argument()) return true;
  return false;
}

// name(...) makes a new tensor from loop-invariant arguments (zeros, arange, *_like...) or
// from the shared random state (rand...).
constexpr bool is_factory(std::string_view name) {
  for (const OpEntry& entry : kOpTable)
    if (entry.name == name && entry.form == OpForm::free_function &&
        (entry.family == Family::factory || entry.random))
      return true;
  return false;
}

constexpr bool is_random_factory(std::string_view name) {
  for (const OpEntry& entry : kOpTable)
    if (entry.name == name && entry.random) return true;
  return false;
}

// Argument `argument` of the member call x.name(...) (0: the first in the parentheses) is a
// position that may vary per example (select's and narrow's index).
constexpr bool is_index_argument_of_member(std::string_view name, std::size_t argument) {
  for (const OpEntry& entry : kOpTable)
    if (entry.name == name && entry.form == OpForm::member && argument + 1 < entry.arity &&
        entry.param(argument + 1) == ArgKind::index)
      return true;
  return false;
}

// Whether name(...) may raise for some values of an example's operands where it does not for
// others, as written: an index out of range (the index family, an index position; one_hot's
// classes), an integer divisor of zero (`%`, remainder, fmod, floor_divide, div with a
// rounding mode), an integer to a negative integer power. The clang tool runs such an operand that C++ may skip under the mask of the examples that
// evaluate it (Note [Masked operands] in vmap/batched.hpp).
inline constexpr std::string_view kValueErrorOps[] = {
    "operator%", "operator%=", "remainder", "remainder_", "fmod", "fmod_", "floor_divide",
    "floor_divide_", "pow", "pow_", "one_hot"};
constexpr bool raises_on_values(std::string_view name, std::size_t arguments) {
  for (std::string_view op : kValueErrorOps)
    if (op == name) return true;
  for (const OpEntry& entry : kOpTable) {
    if (entry.name != name) continue;
    if (entry.family == Family::index) return true;
    for (std::size_t p = 0; p < entry.arity; ++p)
      if (entry.param(p) == ArgKind::index) return true;
    // div(a, b, rounding_mode): an integer quotient ("trunc", "floor")
    if (name == "div" && entry.arity == 3 && arguments + (entry.form == OpForm::member) == 3)
      return true;
  }
  return false;
}

// <cmath> functions the batched API provides on per-example C++ scalars (vb::sqrt(v)),
// with C++ result types (std::sqrt(int) is double). Name and argument count.
struct CmathFunction {
  std::string_view name;
  std::uint8_t arity;
};
inline constexpr std::array kCmathFunctions{
    CmathFunction{"sqrt", 1},  CmathFunction{"exp", 1},  CmathFunction{"log", 1},
    CmathFunction{"pow", 2},   CmathFunction{"abs", 1},  CmathFunction{"fabs", 1},
    CmathFunction{"sin", 1},   CmathFunction{"cos", 1},  CmathFunction{"tanh", 1},
    CmathFunction{"floor", 1}, CmathFunction{"ceil", 1}, CmathFunction{"fmax", 2},
    CmathFunction{"fmin", 2},  CmathFunction{"min", 2},  CmathFunction{"max", 2},
    CmathFunction{"erf", 1},   CmathFunction{"erfc", 1}, CmathFunction{"log1p", 1},
    CmathFunction{"expm1", 1}, CmathFunction{"log2", 1}, CmathFunction{"exp2", 1},
    CmathFunction{"trunc", 1},  // not round: std::round rounds halves away from zero
};

}  // namespace vmap::rules
