// Members, free functions, operators and <cmath> functions of vb::Value: each is one
// op-table lookup (resolved at compile time) and one dispatch.
#include "batched_fused.hpp"

#include <sstream>
#include <string>

namespace vmap::batched {
namespace {

using rules::ArgKind;
using rules::OpForm;
using enum rules::OpForm;

consteval std::size_t member_op(std::string_view name, int arity = -1) {
  return op_index(name, member, arity);
}
consteval std::size_t free_op(std::string_view name, int arity = -1) {
  return op_index(name, free_function, arity);
}
consteval std::size_t dim_form(std::string_view name, OpForm form) {
  return op_index(name, form, {ArgKind::tensor, ArgKind::dim, ArgKind::keepdim});
}
consteval std::size_t dims_form(std::string_view name, OpForm form) {
  return op_index(name, form, {ArgKind::tensor, ArgKind::dim_list, ArgKind::keepdim});
}

bool both_cpp(const Value& a, const Value& b) { return a.is_cpp_scalar() && b.is_cpp_scalar(); }

enum class CppOp {
  add, sub, mul, div, rem, bit_and, bit_or,
#define VMAP_COMPARISON_OP(name, Functor, symbol) name,
#include <vmap/detail/pointwise_ops.def>
};

// C++ arithmetic between two per-example C++ scalars: the usual arithmetic conversions,
// integer division truncating toward zero, comparisons giving bool. Pointwise, so it may
// stay pending (`mask[i][j] = j >= i` is computed block by block into mask).
Value cpp_arithmetic(const Value& a, const Value& divisor_or_b, CppOp op) {
  const Dtype dtype = cpp_common_dtype(a.dtype(), divisor_or_b.dtype());
  const bool integral = !vmap::detail::is_floating(dtype);
  if (op == CppOp::rem && !integral) throw Error("operator%: needs integer operands");
  // Under a mask, the examples that do not run an integer division divide by one, so a
  // masked-out example raises no error the code as written would not (`while (d != 0) {
  // r = a % d; ... }`; Note [Control masks] in batched.hpp).
  const Value* mask = current_mask();
  const bool divides = integral && (op == CppOp::div || op == CppOp::rem);
  const Value b = divides && mask ? scalar_cast_to(where(*mask, divisor_or_b, Value(1)),
                                                   divisor_or_b.dtype())
                                  : divisor_or_b;
  const int64_t levels = std::max(a.levels(), b.levels());
  const Device device = placed_on(a) != kCPU ? placed_on(a) : placed_on(b);
  auto operand = [&](const Value& v) {
    return detail::operand_on(scalar_cast_to(v, dtype), device, [&](std::vector<int64_t> sizes) {
      sizes.insert(sizes.begin() + v.levels(), static_cast<std::size_t>(levels - v.levels()), 1);
      return sizes;
    });
  };
  auto apply = [op, integral](const std::vector<Tensor>& operands) {
    const Tensor &x = operands[0], &y = operands[1];
    switch (op) {
      case CppOp::add:
        return x + y;
      case CppOp::sub:
        return x - y;
      case CppOp::mul:
        return x * y;
      case CppOp::div:
        return integral ? vmap::detail::div_trunc(x, y) : x / y;
      case CppOp::rem:
        return vmap::detail::remainder_trunc(x, y);
#define VMAP_COMPARISON_OP(name, Functor, symbol) \
  case CppOp::name:                               \
    return x symbol y;
#include <vmap/detail/pointwise_ops.def>
      case CppOp::bit_and:
        return x & y;
      case CppOp::bit_or:
        return x | y;
    }
    return Tensor();
  };
  std::vector<detail::PendingOperand> operands{operand(a), operand(b)};
  if (integral && (op == CppOp::div || op == CppOp::rem))  // raises on zero: now, as eagerly
    return Value(apply({std::get<Tensor>(operands[0]), std::get<Tensor>(operands[1])}), levels,
                 true);
  return detail::pointwise_value(std::move(operands), apply, levels, true, std::nullopt);
}

Value binary(std::size_t op, const Value& a, const Value& b, CppOp cpp_op) {
  if (both_cpp(a, b)) {
    const profile::detail::OpScope profiled(rules::kOpTable[op].name);  // dispatch's, for C++ math
    return cpp_arithmetic(a, b, cpp_op);
  }
  return dispatch(op, {a, b});
}

Value floating(const Value& x) {
  return vmap::detail::is_floating(x.dtype()) ? x : scalar_cast_to(x, kFloat64);
}

// A <cmath> function of one argument: C++ result type for scalars, the SPEC op on tensors.
Value cmath(std::size_t op, const Value& x) {
  if (!x.is_cpp_scalar()) return dispatch(op, {x});
  const Value result = dispatch(op, {floating(x)});
  return scalar_cast_to(result, result.dtype());
}

// Ensures a write of `value` into `place` has per-example room: a Value that is the same
// for every example (made in the loop body, e.g. zeros({3})) gets its own copy per example.
void make_room(const Value& place, const Value& value) {
  if (can_hold(place, value)) return;
  const int64_t levels = active_levels();
  Tensor aligned = place.aligned(std::max(levels, place.levels()));
  std::vector<int64_t> sizes = aligned.sizes().vec();
  for (int64_t k = 0; k < levels; ++k) sizes[static_cast<std::size_t>(k)] = level_size(k);
  Access::rebind_physical(place, aligned.expand(sizes).contiguous(),
                          std::max(levels, place.levels()));
}

// LibTorch's checks of add/sub's alpha, one Scalar there, and of sub's operands as given:
// with a per-example alpha the rules see `a + b * alpha`, two ops that check neither (Note
// [Per-example alpha]). (Not where no example runs it: Note [Errors no example raises].)
void check_per_example_alpha(const char* op, const Value& a, const Value& b,
                             const Value& alpha) {
  try {
    if (vmap::detail::is_floating(alpha.dtype()) && !vmap::detail::is_floating(a.dtype()) &&
        !vmap::detail::is_floating(b.dtype()))
      throw Error(std::string(op) +
                  ": for integral input tensors, argument alpha must not be a floating point "
                  "number");
    if (std::string_view(op) == "sub") vmap::detail::check_subtraction(op, a.dtype(), b.dtype());
  } catch (const Error&) {
    if (!raised_by_no_example()) throw;
  }
}

// self op= other: combine(self, other) stored back; errors name `op`, the in-place op
// ("add_") the loop as written runs (Note [The op the user called] in vmap/types.hpp).
template <class Combine>
Value compound(const char* op, Value& self, const Value& other, Combine combine) {
  const vmap::detail::OpName op_name(op);
  const Value updated = combine(self, other);
  if (self.is_cpp_scalar()) return self = scalar_cast_to(updated, self.dtype());
  // A tensor keeps its dtype: an int tensor *= 0.5 raises, as it does per example.
  // (Not where no example runs it: Note [Errors no example raises].)
  if (!vmap::detail::can_cast(updated.dtype(), self.dtype()) && !raised_by_no_example()) {
    std::ostringstream message;
    message << op << ": result type " << updated.dtype()
            << " can't be cast to the desired output type " << self.dtype();
    throw Error(message.str());
  }
  make_room(self, updated);
  store(self, updated);
  return self;
}

}  // namespace

Dtype cpp_common_dtype(Dtype a, Dtype b) {
  auto rank = [](Dtype d) { return d == kFloat64 ? 3 : d == kFloat32 ? 2 : d == kInt64 ? 1 : 0; };
  auto promoted = [](Dtype d) { return d == kBool ? kInt32 : d; };
  return rank(a) >= rank(b) ? promoted(a) : promoted(b);
}

// --- members -----------------------------------------------------------------------------

Value Value::contiguous() const { return dispatch(member_op("contiguous"), {*this}); }
Value Value::clone() const { return dispatch(member_op("clone"), {*this}); }
Value Value::to(Dtype dtype) const {
  if (cpp_scalar_) return scalar_cast_to(*this, dtype);
  return dispatch(member_op("to"), {*this, dtype});
}
Value Value::to(Device device) const {
  Value moved = dispatch(member_op("to"), {*this, device});
  return cpp_scalar_ ? scalar_cast_to(moved, moved.dtype()) : moved;
}
Value Value::index_select(int64_t dim, const Value& index) const {
  return dispatch(member_op("index_select"), {*this, dim, index});
}
Value Value::gather(int64_t dim, const Value& index) const {
  return dispatch(member_op("gather"), {*this, dim, index});
}
Value Value::unsqueeze(int64_t dim) const { return dispatch(member_op("unsqueeze"), {*this, dim}); }
Value Value::squeeze() const { return dispatch(member_op("squeeze", 1), {*this}); }
Value Value::squeeze(int64_t dim) const { return dispatch(member_op("squeeze", 2), {*this, dim}); }
Value Value::expand(IntList sizes) const { return dispatch(member_op("expand"), {*this, sizes}); }
Value Value::expand_as(const Value& other) const {
  return dispatch(member_op("expand_as"), {*this, other});
}
Value Value::reshape(IntList sizes) const { return dispatch(member_op("reshape"), {*this, sizes}); }
Value Value::view(IntList sizes) const { return dispatch(member_op("view"), {*this, sizes}); }
Value Value::transpose(int64_t dim0, int64_t dim1) const {
  return dispatch(member_op("transpose"), {*this, dim0, dim1});
}
Value Value::t() const { return dispatch(member_op("t"), {*this}); }
Value Value::permute(IntList dims) const { return dispatch(member_op("permute"), {*this, dims}); }
Value Value::flatten(int64_t start_dim, int64_t end_dim) const {
  return dispatch(member_op("flatten"), {*this, start_dim, end_dim});
}
Value Value::movedim(int64_t source, int64_t destination) const {
  return dispatch(op_index("movedim", member, {ArgKind::tensor, ArgKind::dim, ArgKind::dim}),
                  {*this, source, destination});
}
Value Value::movedim(IntList source, IntList destination) const {
  return dispatch(
      op_index("movedim", member, {ArgKind::tensor, ArgKind::dim_list, ArgKind::dim_list}),
      {*this, source, destination});
}
Value Value::triu(int64_t diagonal) const { return dispatch(member_op("triu"), {*this, diagonal}); }
Value Value::tril(int64_t diagonal) const { return dispatch(member_op("tril"), {*this, diagonal}); }

Value Value::sum() const { return dispatch(member_op("sum", 1), {*this}); }
Value Value::sum(int64_t dim, bool keepdim) const {
  return dispatch(dim_form("sum", member), {*this, dim, keepdim});
}
Value Value::sum(IntList dims, bool keepdim) const {
  return dispatch(dims_form("sum", member), {*this, dims, keepdim});
}
Value Value::mean() const { return dispatch(member_op("mean", 1), {*this}); }
Value Value::mean(int64_t dim, bool keepdim) const {
  return dispatch(dim_form("mean", member), {*this, dim, keepdim});
}
Value Value::mean(IntList dims, bool keepdim) const {
  return dispatch(dims_form("mean", member), {*this, dims, keepdim});
}
Value Value::amax(int64_t dim, bool keepdim) const {
  return dispatch(member_op("amax"), {*this, dim, keepdim});
}
Value Value::amax(IntList dims, bool keepdim) const {
  return dispatch(member_op("amax"), {*this, dims, keepdim});
}
Value Value::amin(IntList dims, bool keepdim) const {
  return dispatch(member_op("amin"), {*this, dims, keepdim});
}
Value Value::amin(int64_t dim, bool keepdim) const {
  return dispatch(member_op("amin"), {*this, dim, keepdim});
}
Value Value::argmax() const { return dispatch(member_op("argmax", 1), {*this}); }
Value Value::argmax(int64_t dim, bool keepdim) const {
  return dispatch(dim_form("argmax", member), {*this, dim, keepdim});
}
Value Value::argmin() const { return dispatch(member_op("argmin", 1), {*this}); }
Value Value::argmin(int64_t dim, bool keepdim) const {
  return dispatch(dim_form("argmin", member), {*this, dim, keepdim});
}
Value Value::any() const { return dispatch(member_op("any", 1), {*this}); }
Value Value::any(int64_t dim, bool keepdim) const {
  return dispatch(dim_form("any", member), {*this, dim, keepdim});
}
Value Value::all() const { return dispatch(member_op("all", 1), {*this}); }
Value Value::all(int64_t dim, bool keepdim) const {
  return dispatch(dim_form("all", member), {*this, dim, keepdim});
}
Value Value::softmax(int64_t dim) const { return dispatch(free_op("softmax"), {*this, dim}); }
Value Value::log_softmax(int64_t dim) const {
  return dispatch(member_op("log_softmax"), {*this, dim});
}

Value Value::cumsum(int64_t dim) const { return dispatch(member_op("cumsum"), {*this, dim}); }
Value Value::cumprod(int64_t dim) const { return dispatch(member_op("cumprod"), {*this, dim}); }
// sort / topk (Note [Sorting] in runtime/src/ops_sort.cpp): the entry's dispatch gives the
// indices, a gather along the same dim the values (a 0-d example is its own value).
namespace {
std::tuple<Value, Value> values_and_indices(const Value& x, int64_t dim, const Value& indices) {
  return {x.dim() == 0 ? x.clone() : x.gather(dim, indices), indices};
}
}  // namespace
std::tuple<Value, Value> Value::sort(int64_t dim, bool descending) const {
  return values_and_indices(*this, dim, dispatch(member_op("sort"), {*this, dim, descending}));
}
Value Value::argsort(int64_t dim, bool descending) const {
  return dispatch(member_op("argsort"), {*this, dim, descending});
}
std::tuple<Value, Value> Value::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return values_and_indices(*this, dim,
                            dispatch(member_op("topk"), {*this, k, dim, largest, sorted}));
}
Value Value::logsumexp(IntList dims, bool keepdim) const {
  return dispatch(member_op("logsumexp"), {*this, dims, keepdim});
}
Value Value::var(IntList dims, bool unbiased, bool keepdim) const {
  return dispatch(member_op("var"), {*this, dims, unbiased, keepdim});
}
Value Value::std(IntList dims, bool unbiased, bool keepdim) const {
  return dispatch(member_op("std"), {*this, dims, unbiased, keepdim});
}
Value Value::norm(vmap::detail::Scalar p, IntList dims, bool keepdim) const {
  return dispatch(member_op("norm"), {*this, p, dims, keepdim});
}
// Over the whole example: the dim-list form over the flattened example (a 0-d example is one
// element, as LibTorch reduces it).
Value Value::var(bool unbiased) const { return flatten().var({0}, unbiased); }
Value Value::std(bool unbiased) const { return flatten().std({0}, unbiased); }
Value Value::norm(vmap::detail::Scalar p) const { return flatten().norm(p, {0}); }
Value Value::masked_fill(const Value& mask, const Value& value) const {
  check_fill_value("masked_fill", value, dtype());
  return dispatch(member_op("masked_fill"), {*this, mask, value});
}
Value Value::lerp(const Value& end, const Value& weight) const {
  return dispatch(member_op("lerp"), {*this, end, weight});
}

Value Value::matmul(const Value& other) const {
  return dispatch(member_op("matmul"), {*this, other});
}
Value Value::mm(const Value& other) const { return dispatch(member_op("mm"), {*this, other}); }
Value Value::mv(const Value& other) const { return dispatch(member_op("mv"), {*this, other}); }
Value Value::bmm(const Value& other) const { return dispatch(member_op("bmm"), {*this, other}); }
Value Value::dot(const Value& other) const { return dispatch(member_op("dot"), {*this, other}); }

// Note [Pointwise ops outside the list]
// An op fits the pointwise op list (Note [Pointwise op list]) when it is one functor on its
// (promoted) operands, its result dtype is its domain's, LibTorch's overloads are (Tensor) or
// (Tensor, Tensor or Scalar), and on a per-example C++ scalar it means what <cmath> means (the
// generated unary forms below compute a C++ int as double, as std::floor(int) does). Each
// pointwise op of the op table written out in every layer instead fails one of these:
// - neg / unary `-`, abs: on a C++ `int` (or bool) `-v` and std::abs(v) are `int`, not double;
//   both raise LibTorch's own errors on bool tensors.
// - add / sub: LibTorch's alpha (a + alpha * b), a third argument that may differ per example
//   (Note [Per-example alpha]), with a DeviceOp of its own.
// - mul, div and the operators + - * / %: between two per-example C++ scalars they are C++
//   arithmetic (int / int truncates, % takes the dividend's sign), not ATen's; div has
//   rounding_mode; `%` on tensors is remainder.
// - pow: std::pow's result type on C++ scalars; literal exponents strength-reduced (Note [pow
//   strength reduction] in runtime/src/pointwise.cpp); a Scalar base overload.
// - maximum / minimum, logical_and / logical_or: LibTorch has no Scalar overload (the list's
//   binary ops take numbers); std::max / min / fmax / fmin on C++ scalars are built on the
//   first two with C++'s NaN rules.
// - logical_not / `!`, logical_and / logical_or: computed on bools whatever the operands
//   (no domain gives that), SIMD kernels of their own; `&` and `|` are bitwise, on bool and
//   integer tensors only. (The comparisons, bool results too, are the list's
//   VMAP_COMPARISON_OP section.)
// - where, clamp: three operands; clamp's bounds optional, numbers or tensors.
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) \
  Value Value::name() const { return cmath(member_op(#name), *this); }
#define VMAP_BINARY_OP(name, Functor, domain) \
  Value Value::name(const Value& other) const { return dispatch(member_op(#name), {*this, other}); }
#include <vmap/detail/pointwise_ops.def>
Value Value::abs() const { return batched::abs(*this); }
Value Value::neg() const { return -*this; }
Value Value::logical_not() const { return batched::logical_not(*this); }
Value Value::pow(const Value& exponent) const { return batched::pow(*this, exponent); }
Value Value::clamp(const Value& min, const Value& max) const {
  return dispatch(member_op("clamp"), {*this, min, max});
}
// Note [Per-example alpha]
// LibTorch's add/sub take alpha as a Scalar, which the rules take as one number for every
// example (ArgKind::alpha). In a vmap loop it may differ per example (SPEC section 6:
// any argument may): then b is scaled by it first, a + alpha * b as LibTorch defines it,
// and the sum is one more batched op. A loop-invariant alpha keeps the single op.
Value Value::add(const Value& other, const Value& alpha) const {
  if (alpha.levels() > 0) {
    check_per_example_alpha("add", *this, other, alpha);
    return add(other.mul(alpha));
  }
  return dispatch(member_op("add"), {*this, other, alpha.physical().item()});
}
Value Value::sub(const Value& other, const Value& alpha) const {
  if (alpha.levels() > 0) {
    check_per_example_alpha("sub", *this, other, alpha);
    return sub(other.mul(alpha));
  }
  return dispatch(member_op("sub"), {*this, other, alpha.physical().item()});
}
Value Value::mul(const Value& other) const { return dispatch(member_op("mul"), {*this, other}); }
Value Value::div(const Value& other) const { return dispatch(member_op("div"), {*this, other}); }
Value Value::div(const Value& other, std::optional<std::string_view> rounding_mode) const {
  if (!rounding_mode) return div(other);
  return dispatch(member_op("div", 3), {*this, other, *rounding_mode});
}
Value Value::maximum(const Value& other) const {
  return dispatch(member_op("maximum"), {*this, other});
}
Value Value::minimum(const Value& other) const {
  return dispatch(member_op("minimum"), {*this, other});
}
Value Value::logical_and(const Value& other) const {
  return dispatch(member_op("logical_and"), {*this, other});
}
Value Value::logical_or(const Value& other) const {
  return dispatch(member_op("logical_or"), {*this, other});
}

const Value& Value::copy_(const Value& src) const {
  make_room(*this, src);
  store(*this, src);
  return *this;
}
const Value& Value::fill_(const Value& value) const { return copy_(value); }
const Value& Value::zero_() const { return copy_(Value(int64_t{0})); }
Value& Value::operator+=(const Value& other) {
  compound("add_", *this, other, [](const Value& a, const Value& b) { return a + b; });
  return *this;
}
Value& Value::operator-=(const Value& other) {
  compound("sub_", *this, other, [](const Value& a, const Value& b) { return a - b; });
  return *this;
}
Value& Value::operator*=(const Value& other) {
  compound("mul_", *this, other, [](const Value& a, const Value& b) { return a * b; });
  return *this;
}
Value& Value::operator/=(const Value& other) {
  compound("div_", *this, other, [](const Value& a, const Value& b) { return a / b; });
  return *this;
}
Value& Value::operator%=(const Value& other) {
  compound("remainder_", *this, other, [](const Value& a, const Value& b) { return a % b; });
  return *this;
}

// --- free functions ------------------------------------------------------------------------

Value add(const Value& a, const Value& b, const Value& alpha) {  // Note [Per-example alpha]
  if (alpha.levels() > 0) {
    check_per_example_alpha("add", a, b, alpha);
    return add(a, mul(b, alpha));
  }
  return dispatch(free_op("add"), {a, b, alpha.physical().item()});
}
Value sub(const Value& a, const Value& b, const Value& alpha) {
  if (alpha.levels() > 0) {
    check_per_example_alpha("sub", a, b, alpha);
    return sub(a, mul(b, alpha));
  }
  return dispatch(free_op("sub"), {a, b, alpha.physical().item()});
}
Value mul(const Value& a, const Value& b) { return dispatch(free_op("mul"), {a, b}); }
Value div(const Value& a, const Value& b) { return dispatch(free_op("div"), {a, b}); }
Value div(const Value& a, const Value& b, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return div(a, b);
  return dispatch(free_op("div", 3), {a, b, *rounding_mode});
}
Value maximum(const Value& a, const Value& b) { return dispatch(free_op("maximum"), {a, b}); }
Value minimum(const Value& a, const Value& b) { return dispatch(free_op("minimum"), {a, b}); }
Value where(const Value& condition, const Value& a, const Value& b) {
  // `c ? x[i] : y[i]` of tensors of two dtypes or shapes (Note [One dtype and shape per
  // variable] in batched_value.cpp): the side every example the mask runs takes.
  if (condition.is_cpp_scalar() && !a.is_cpp_scalar() && !b.is_cpp_scalar() &&
      !same_dtype_and_shape(a, b))
    return every_running_example(condition, a, b) ? a : b;
  if (both_cpp(a, b) && condition.is_cpp_scalar()) {  // `c ? x : y` on C++ scalars
    const Dtype dtype = cpp_common_dtype(a.dtype(), b.dtype());
    const Value picked = dispatch(
        free_op("where"),
        {scalar_cast_to(condition, kBool), scalar_cast_to(a, dtype), scalar_cast_to(b, dtype)});
    return scalar_cast_to(picked, dtype);
  }
  if (both_cpp(a, b)) {  // where(mask, Scalar, Scalar): ATen's wrapped numbers (float32 for a double)
    const Dtype dtype = vmap::detail::result_type(
        {vmap::detail::number_operand(a.dtype()), vmap::detail::number_operand(b.dtype())});
    return dispatch(free_op("where"), {condition, scalar_cast_to(a, dtype), scalar_cast_to(b, dtype)});
  }
  return dispatch(free_op("where"), {condition, a, b});
}
Value clamp(const Value& x, const Value& min, const Value& max) {
  return dispatch(free_op("clamp"), {x, min, max});
}
Value neg(const Value& x) { return dispatch(free_op("neg"), {x}); }
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) \
  Value name(const Value& x) { return cmath(free_op(#name), x); }
#define VMAP_BINARY_OP(name, Functor, domain) \
  Value name(const Value& a, const Value& b) { return dispatch(free_op(#name), {a, b}); }
#include <vmap/detail/pointwise_ops.def>
Value sum(const Value& x) { return dispatch(free_op("sum", 1), {x}); }
Value sum(const Value& x, int64_t dim, bool keepdim) {
  return dispatch(dim_form("sum", free_function), {x, dim, keepdim});
}
Value sum(const Value& x, vmap::detail::IntList dims, bool keepdim) {
  return dispatch(dims_form("sum", free_function), {x, dims, keepdim});
}
Value mean(const Value& x) { return dispatch(free_op("mean", 1), {x}); }
Value mean(const Value& x, int64_t dim, bool keepdim) {
  return dispatch(dim_form("mean", free_function), {x, dim, keepdim});
}
Value mean(const Value& x, vmap::detail::IntList dims, bool keepdim) {
  return dispatch(dims_form("mean", free_function), {x, dims, keepdim});
}
Value amax(const Value& x, int64_t dim, bool keepdim) {
  return dispatch(free_op("amax"), {x, dim, keepdim});
}
Value amax(const Value& x, vmap::detail::IntList dims, bool keepdim) {
  return dispatch(free_op("amax"), {x, dims, keepdim});
}
Value amin(const Value& x, vmap::detail::IntList dims, bool keepdim) {
  return dispatch(free_op("amin"), {x, dims, keepdim});
}
Value amin(const Value& x, int64_t dim, bool keepdim) {
  return dispatch(free_op("amin"), {x, dim, keepdim});
}
Value argmax(const Value& x) { return dispatch(free_op("argmax", 1), {x}); }
Value argmax(const Value& x, int64_t dim, bool keepdim) {
  return dispatch(dim_form("argmax", free_function), {x, dim, keepdim});
}
Value argmin(const Value& x) { return dispatch(free_op("argmin", 1), {x}); }
Value argmin(const Value& x, int64_t dim, bool keepdim) {
  return dispatch(dim_form("argmin", free_function), {x, dim, keepdim});
}
Value any(const Value& x) { return dispatch(free_op("any", 1), {x}); }
Value any(const Value& x, int64_t dim, bool keepdim) {
  return dispatch(dim_form("any", free_function), {x, dim, keepdim});
}
Value all(const Value& x) { return dispatch(free_op("all", 1), {x}); }
Value all(const Value& x, int64_t dim, bool keepdim) {
  return dispatch(dim_form("all", free_function), {x, dim, keepdim});
}
Value equal(const Value& a, const Value& b) { return dispatch(free_op("equal"), {a, b}); }
Value allclose(const Value& a, const Value& b, const Value& rtol, const Value& atol) {
  return dispatch(free_op("allclose"), {a, b, rtol, atol});
}
Value matmul(const Value& a, const Value& b) { return dispatch(free_op("matmul"), {a, b}); }
Value mm(const Value& a, const Value& b) { return dispatch(free_op("mm"), {a, b}); }
Value mv(const Value& a, const Value& b) { return dispatch(free_op("mv"), {a, b}); }
Value bmm(const Value& a, const Value& b) { return dispatch(free_op("bmm"), {a, b}); }
Value dot(const Value& a, const Value& b) { return dispatch(free_op("dot"), {a, b}); }
Value linear(const Value& x, const Value& weight, const Value& bias) {
  return dispatch(free_op("linear"), {x, weight, bias});
}
std::tuple<Value, Value> sort(const Value& x, int64_t dim, bool descending) {
  return values_and_indices(x, dim, dispatch(free_op("sort"), {x, dim, descending}));
}
Value argsort(const Value& x, int64_t dim, bool descending) {
  return dispatch(free_op("argsort"), {x, dim, descending});
}
std::tuple<Value, Value> topk(const Value& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  return values_and_indices(x, dim, dispatch(free_op("topk"), {x, k, dim, largest, sorted}));
}
Value one_hot(const Value& x, int64_t num_classes) {
  return dispatch(free_op("one_hot"), {x, num_classes});
}
Value gather(const Value& x, int64_t dim, const Value& index) {
  return dispatch(free_op("gather"), {x, dim, index});
}
Value index_select(const Value& x, int64_t dim, const Value& index) {
  return dispatch(free_op("index_select"), {x, dim, index});
}
Value softmax(const Value& x, int64_t dim) { return x.softmax(dim); }
Value log_softmax(const Value& x, int64_t dim) { return x.log_softmax(dim); }
Value cumsum(const Value& x, int64_t dim) { return dispatch(free_op("cumsum"), {x, dim}); }
Value cumprod(const Value& x, int64_t dim) { return dispatch(free_op("cumprod"), {x, dim}); }
Value logsumexp(const Value& x, vmap::detail::IntList dims, bool keepdim) {
  return dispatch(free_op("logsumexp"), {x, dims, keepdim});
}
Value var(const Value& x, vmap::detail::IntList dims, bool unbiased, bool keepdim) {
  return dispatch(free_op("var"), {x, dims, unbiased, keepdim});
}
Value std(const Value& x, vmap::detail::IntList dims, bool unbiased, bool keepdim) {
  return dispatch(free_op("std"), {x, dims, unbiased, keepdim});
}
Value norm(const Value& x, vmap::detail::Scalar p, vmap::detail::IntList dims, bool keepdim) {
  return dispatch(free_op("norm"), {x, p, dims, keepdim});
}
Value var(const Value& x, bool unbiased) { return x.var(unbiased); }
Value std(const Value& x, bool unbiased) { return x.std(unbiased); }
Value norm(const Value& x, vmap::detail::Scalar p) { return x.norm(p); }
Value masked_fill(const Value& x, const Value& mask, const Value& value) {
  return x.masked_fill(mask, value);
}
Value lerp(const Value& start, const Value& end, const Value& weight) {
  return dispatch(free_op("lerp"), {start, end, weight});
}
Value gelu(const Value& x, std::string_view approximate) {
  return dispatch(free_op("gelu"), {x, approximate});
}
Value softplus(const Value& x, vmap::detail::Scalar beta, vmap::detail::Scalar threshold) {
  return dispatch(free_op("softplus"), {x, beta, threshold});
}
Value cat(const std::vector<Value>& tensors, int64_t dim) {
  return dispatch(free_op("cat"), {tensors, dim});
}
Value stack(const std::vector<Value>& tensors, int64_t dim) {
  return dispatch(free_op("stack"), {tensors, dim});
}
Value unsqueeze(const Value& x, int64_t dim) { return dispatch(free_op("unsqueeze"), {x, dim}); }
Value squeeze(const Value& x) { return dispatch(free_op("squeeze", 1), {x}); }
Value squeeze(const Value& x, int64_t dim) { return dispatch(free_op("squeeze", 2), {x, dim}); }
Value expand(const Value& x, vmap::detail::IntList sizes) {
  return dispatch(free_op("expand"), {x, sizes});
}
Value reshape(const Value& x, vmap::detail::IntList sizes) {
  return dispatch(free_op("reshape"), {x, sizes});
}
Value view(const Value& x, vmap::detail::IntList sizes) { return x.view(sizes); }
Value transpose(const Value& x, int64_t dim0, int64_t dim1) {
  return dispatch(free_op("transpose"), {x, dim0, dim1});
}
Value t(const Value& x) { return x.t(); }
Value permute(const Value& x, vmap::detail::IntList dims) {
  return dispatch(free_op("permute"), {x, dims});
}
Value movedim(const Value& x, int64_t source, int64_t destination) {
  return x.movedim(source, destination);
}
Value movedim(const Value& x, vmap::detail::IntList source, vmap::detail::IntList destination) {
  return x.movedim(source, destination);
}
Value flatten(const Value& x, int64_t start_dim, int64_t end_dim) {
  return dispatch(free_op("flatten"), {x, start_dim, end_dim});
}
Value narrow(const Value& x, int64_t dim, const Value& start, int64_t length) {
  return x.narrow(dim, start, length);
}
Value triu(const Value& x, int64_t diagonal) { return x.triu(diagonal); }
Value tril(const Value& x, int64_t diagonal) { return x.tril(diagonal); }
Value zeros_like(const Value& x, TensorOptions options) {
  return dispatch(free_op("zeros_like"), {x, options});
}
Value ones_like(const Value& x, TensorOptions options) {
  return dispatch(free_op("ones_like"), {x, options});
}
Value empty_like(const Value& x, TensorOptions options) {
  return dispatch(free_op("empty_like"), {x, options});
}
Value full_like(const Value& x, const Value& value, TensorOptions options) {
  check_fill_value("full_like", value, options.dtype_or(x.dtype()));
  return dispatch(free_op("full_like"), {x, value, options});
}
Value full(vmap::detail::IntList sizes, const Value& value, TensorOptions options) {
  if (options.dtype_opt()) check_fill_value("full", value, *options.dtype_opt());
  return dispatch(free_op("full"), {sizes, value, options});
}

NestedValues::NestedValues(std::initializer_list<NestedValues> nested) {
  sizes_.push_back(static_cast<int64_t>(nested.size()));
  if (nested.size() == 0) return;
  const NestedValues& first = *nested.begin();
  sizes_.insert(sizes_.end(), first.sizes_.begin(), first.sizes_.end());
  for (const NestedValues& element : nested) {
    if (element.sizes_ != first.sizes_)
      throw Error("tensor: expected all sub-lists to have " + std::to_string(first.numbers_.size()) +
                  " numbers in the same nesting, got " + std::to_string(element.numbers_.size()));
    numbers_.insert(numbers_.end(), element.numbers_.begin(), element.numbers_.end());
  }
}

Value tensor(NestedValues data, TensorOptions options) {
  const Value numbers = dispatch(free_op("tensor"), {data.numbers(), options});
  return numbers.reshape(data.sizes());
}

Value contiguous(const Value& x) { return x.contiguous(); }
Value clone(const Value& x) { return x.clone(); }
Value to(const Value& x, Dtype dtype) { return x.to(dtype); }
Value to(const Value& x, Device device) { return x.to(device); }
Value copy_(const Value& destination, const Value& src) { return destination.copy_(src); }
Value fill_(const Value& destination, const Value& value) { return destination.fill_(value); }
Value zero_(const Value& destination) { return destination.zero_(); }
int64_t dim(const Value& x) { return x.dim(); }
int64_t size(const Value& x, int64_t dim) { return x.size(dim); }
std::vector<int64_t> sizes(const Value& x) { return x.sizes(); }
int64_t numel(const Value& x) { return x.numel(); }
Dtype dtype(const Value& x) { return x.dtype(); }

// --- <cmath> -------------------------------------------------------------------------------

Value abs(const Value& x) {
  if (x.is_cpp_scalar() && x.dtype() == kBool)
    return dispatch(free_op("abs"), {scalar_cast_to(x, kInt32)});
  const Value result = dispatch(free_op("abs"), {x});
  return x.is_cpp_scalar() ? scalar_cast_to(result, result.dtype()) : result;
}
Value fabs(const Value& x) { return scalar_cast_to(abs(floating(x)), floating(x).dtype()); }

namespace {
// std::pow / fmax / fmin: float only when both are float, else double.
Dtype floating_common(const Value& a, const Value& b) {
  return a.dtype() == kFloat32 && b.dtype() == kFloat32 ? kFloat32 : kFloat64;
}
Value cpp_binary(std::size_t op, const Value& a, const Value& b, Dtype dtype) {
  return scalar_cast_to(dispatch(op, {scalar_cast_to(a, dtype), scalar_cast_to(b, dtype)}), dtype);
}
// std::max / std::min pick by one comparison (`a < b ? b : a`, `b < a ? b : a`), so a NaN
// is kept or dropped by its position, not propagated as by maximum, and on ties (-0 and +0)
// they return the first operand. std::fmax / std::fmin as the C library computes them (Note
// [fmax and fmin on ties] in batched_control.cpp): the first only where it is larger
// (smaller) or the second is NaN, so the second on ties.
Value cpp_pick(const Value& a, const Value& b, Dtype dtype, bool larger, bool skip_nan) {
  const Value x = scalar_cast_to(a, dtype), y = scalar_cast_to(b, dtype);
  if (!skip_nan) return where(larger ? x < y : y < x, y, x);
  return where((larger ? x > y : x < y) || y != y, x, y);
}
}  // namespace

Value pow(const Value& a, const Value& b) {
  if (both_cpp(a, b)) return cpp_binary(free_op("pow"), a, b, floating_common(a, b));
  // LibTorch's pow(Tensor, Scalar) raises for integers to a negative integer power; the
  // rules' pow of a number computes 1 / x (a 0 of integers), and a per-example exponent is a
  // tensor to them, whose pow (ATen's of two tensors) computes 0. (Not where no example runs
  // it: Note [Errors no example raises].)
  if (b.is_cpp_scalar() && !a.is_cpp_scalar() && vmap::detail::is_integral(a.dtype()) &&
      vmap::detail::is_integral(b.dtype())) {
    try {
      b.check_items_fit([](vmap::detail::Scalar exponent) {
        if (exponent.to_int64() < 0)
          throw Error("pow: integers to negative integer powers are not allowed (exponent " +
                      std::to_string(exponent.to_int64()) + ")");
      });
    } catch (const Error&) {
      if (!raised_by_no_example()) throw;
    }
  }
  return dispatch(free_op("pow"), {a, b});
}
Value fmax(const Value& a, const Value& b) {
  if (both_cpp(a, b)) return cpp_pick(a, b, floating_common(a, b), true, true);
  return maximum(a, b);
}
Value fmin(const Value& a, const Value& b) {
  if (both_cpp(a, b)) return cpp_pick(a, b, floating_common(a, b), false, true);
  return minimum(a, b);
}
Value max(const Value& a, const Value& b) {
  if (both_cpp(a, b)) return cpp_pick(a, b, cpp_common_dtype(a.dtype(), b.dtype()), true, false);
  return maximum(a, b);
}
Value min(const Value& a, const Value& b) {
  if (both_cpp(a, b)) return cpp_pick(a, b, cpp_common_dtype(a.dtype(), b.dtype()), false, false);
  return minimum(a, b);
}

// --- operators -------------------------------------------------------------------------------

consteval std::size_t operator_op(std::string_view name) { return op_index(name, binary_operator); }

Value operator+(const Value& a, const Value& b) {
  return binary(operator_op("operator+"), a, b, CppOp::add);
}
Value operator-(const Value& a, const Value& b) {
  return binary(operator_op("operator-"), a, b, CppOp::sub);
}
Value operator*(const Value& a, const Value& b) {
  return binary(operator_op("operator*"), a, b, CppOp::mul);
}
Value operator/(const Value& a, const Value& b) {
  return binary(operator_op("operator/"), a, b, CppOp::div);
}
Value operator%(const Value& a, const Value& b) {
  return binary(operator_op("operator%"), a, b, CppOp::rem);
}
#define VMAP_COMPARISON_OP(name, Functor, symbol)                              \
  Value operator symbol(const Value& a, const Value& b) {                      \
    return binary(operator_op("operator" #symbol), a, b, CppOp::name);         \
  }
#include <vmap/detail/pointwise_ops.def>
Value operator&(const Value& a, const Value& b) {
  return binary(operator_op("operator&"), a, b, CppOp::bit_and);
}
Value operator|(const Value& a, const Value& b) {
  return binary(operator_op("operator|"), a, b, CppOp::bit_or);
}

Value operator-(const Value& x) {
  if (!x.is_cpp_scalar()) return dispatch(op_index("operator-", unary_operator), {x});
  const Value promoted = scalar_cast_to(x, cpp_common_dtype(x.dtype(), kInt32));
  return scalar_cast_to(dispatch(free_op("neg"), {promoted}), promoted.dtype());
}

Value logical_not(const Value& x) {
  const Value result = dispatch(free_op("logical_not"), {x});
  return x.is_cpp_scalar() ? scalar_cast_to(result, kBool) : result;
}
Value operator!(const Value& x) { return logical_not(x); }

Value logical_and(const Value& a, const Value& b) {
  const Value result = dispatch(free_op("logical_and"), {a, b});
  return both_cpp(a, b) ? scalar_cast_to(result, kBool) : result;
}
Value logical_or(const Value& a, const Value& b) {
  const Value result = dispatch(free_op("logical_or"), {a, b});
  return both_cpp(a, b) ? scalar_cast_to(result, kBool) : result;
}
Value operator&&(const Value& a, const Value& b) { return logical_and(a, b); }
Value operator||(const Value& a, const Value& b) { return logical_or(a, b); }

}  // namespace vmap::batched
