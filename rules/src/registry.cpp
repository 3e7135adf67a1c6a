// One binding per op-table entry (Note [Rule registry]) and the RuleId -> rule map.
#include <vmap/rules/rules.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <string>

namespace vmap::rules {
namespace {

struct Binding {
  std::string_view name;
  OpForm form;
  Reference reference;
};

using A = const CallArgs&;
using enum OpForm;

Tensor number(int64_t value) { return vmap::tensor(value); }
Tensor flag_tensor(bool value) { return vmap::tensor(value); }
std::optional<Tensor> optional_tensor(A a, std::size_t i) {
  return a.given(i) ? std::optional<Tensor>(a.tensor(i)) : std::nullopt;
}
Tensor refuse(A) { throw Error("vmap: this op has no batched meaning"); }
// clamp(x, lo, hi): Scalar bounds use the Scalar overload; tensor bounds (what the rule
// passes after promotion) the tensor one.
Tensor clamp_reference(A a) {
  const bool tensor_bounds = (a.given(1) && std::holds_alternative<TensorArg>(a.raw(1))) ||
                             (a.given(2) && std::holds_alternative<TensorArg>(a.raw(2)));
  if (tensor_bounds) {
    auto bound = [&](std::size_t i) -> std::optional<Tensor> {
      if (!a.given(i)) return std::nullopt;
      return a.operand(i).value;
    };
    return vmap::clamp(a.tensor(0), bound(1), bound(2));
  }
  auto bound = [&](std::size_t i) -> std::optional<detail::Scalar> {
    return a.given(i) ? std::optional<detail::Scalar>(a.scalar(i)) : std::nullopt;
  };
  return vmap::clamp(a.tensor(0), bound(1), bound(2));
}

// div's rounding_mode: left out (or std::nullopt) is true division.
std::optional<std::string_view> rounding_mode(A a, std::size_t i) {
  if (!a.given(i)) return std::nullopt;
  return a.text(i, "");
}

// masked_fill(x, mask, value): a tensor value must be 0-d, a number is cast to x's dtype.
Tensor masked_fill_reference(A a) {
  if (std::holds_alternative<TensorArg>(a.raw(2)))
    return vmap::masked_fill(a.tensor(0), a.tensor(1), a.tensor(2));
  return vmap::masked_fill(a.tensor(0), a.tensor(1), a.scalar(2));
}

// clang-format off
constexpr std::array kBindings{
  Binding{"dim", member, [](A a) { return number(a.tensor(0).dim()); }},
  Binding{"size", member, [](A a) { return number(a.tensor(0).size(a.integer(1))); }},
  Binding{"sizes", member, [](A a) { return vmap::tensor(detail::TensorData(a.tensor(0).sizes().vec())); }},
  Binding{"numel", member, [](A a) { return number(a.tensor(0).numel()); }},
  Binding{"dtype", member, [](A a) { return number(static_cast<int64_t>(a.tensor(0).dtype())); }},
  Binding{"scalar_type", member, [](A a) { return number(static_cast<int64_t>(a.tensor(0).scalar_type())); }},
  Binding{"device", member, [](A a) { return number(static_cast<int64_t>(a.tensor(0).device())); }},
  Binding{"is_contiguous", member, [](A a) { return flag_tensor(a.tensor(0).is_contiguous()); }},
  Binding{"contiguous", member, [](A a) { return a.tensor(0).contiguous(); }},
  Binding{"clone", member, [](A a) { return a.tensor(0).clone(); }},
  Binding{"to", member, [](A a) {
    if (const auto* device = std::get_if<Device>(&a.raw(1))) return a.tensor(0).to(*device);
    return a.tensor(0).to(std::get<Dtype>(a.raw(1)));
  }},
  Binding{"item", member, [](A a) {
    const Tensor& x = a.tensor(0);
    if (x.numel() != 1)
      throw Error("item: a tensor with " + std::to_string(x.numel()) + " elements cannot be converted to a scalar");
    return x.reshape({});
  }},
  Binding{"data_ptr", member, refuse},
  Binding{"abs", member, [](A a) { return a.tensor(0).abs(); }},
  Binding{"neg", member, [](A a) { return a.tensor(0).neg(); }},
  Binding{"logical_not", member, [](A a) { return a.tensor(0).logical_not(); }},
  Binding{"neg", free_function, [](A a) { return vmap::neg(a.tensor(0)); }},
  Binding{"abs", free_function, [](A a) { return vmap::abs(a.tensor(0)); }},
  Binding{"logical_not", free_function, [](A a) { return vmap::logical_not(a.tensor(0)); }},
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost)                       \
  Binding{#name, member, [](A a) { return a.tensor(0).name(); }},              \
  Binding{#name, free_function, [](A a) { return vmap::name(a.tensor(0)); }},
#define VMAP_BINARY_OP(name, Functor, domain)                                         \
  Binding{#name, member, [](A a) { return a.tensor(0).name(a.tensor(1)); }},          \
  Binding{#name, free_function, [](A a) { return vmap::name(a.tensor(0), a.tensor(1)); }},
#define VMAP_COMPARISON_OP(name, Functor, symbol) \
  VMAP_BINARY_OP(name, Functor, comparison)       \
  Binding{"operator" #symbol, binary_operator, [](A a) { return a.tensor(0) symbol a.tensor(1); }},
#include <vmap/detail/pointwise_ops.def>
  Binding{"operator-", unary_operator, [](A a) { return -a.tensor(0); }},
  Binding{"operator!", unary_operator, [](A a) { return !a.tensor(0); }},
  Binding{"operator+", binary_operator, [](A a) { return a.tensor(0) + a.tensor(1); }},
  Binding{"operator-", binary_operator, [](A a) { return a.tensor(0) - a.tensor(1); }},
  Binding{"operator*", binary_operator, [](A a) { return a.tensor(0) * a.tensor(1); }},
  Binding{"operator/", binary_operator, [](A a) { return a.tensor(0) / a.tensor(1); }},
  Binding{"operator&", binary_operator, [](A a) { return a.tensor(0) & a.tensor(1); }},
  Binding{"operator|", binary_operator, [](A a) { return a.tensor(0) | a.tensor(1); }},
  Binding{"operator%", binary_operator, [](A a) { return a.tensor(0) % a.tensor(1); }},
  Binding{"add", free_function, [](A a) { return vmap::add(a.tensor(0), a.tensor(1), a.scalar(2, 1)); }},
  Binding{"sub", free_function, [](A a) { return vmap::sub(a.tensor(0), a.tensor(1), a.scalar(2, 1)); }},
  Binding{"mul", free_function, [](A a) { return vmap::mul(a.tensor(0), a.tensor(1)); }},
  Binding{"div", free_function, [](A a) { return vmap::div(a.tensor(0), a.tensor(1)); }},
  Binding{"pow", free_function, [](A a) { return vmap::pow(a.tensor(0), a.tensor(1)); }},
  Binding{"maximum", free_function, [](A a) { return vmap::maximum(a.tensor(0), a.tensor(1)); }},
  Binding{"minimum", free_function, [](A a) { return vmap::minimum(a.tensor(0), a.tensor(1)); }},
  Binding{"logical_and", free_function, [](A a) { return vmap::logical_and(a.tensor(0), a.tensor(1)); }},
  Binding{"logical_or", free_function, [](A a) { return vmap::logical_or(a.tensor(0), a.tensor(1)); }},
  Binding{"add", member, [](A a) { return a.tensor(0).add(a.tensor(1), a.scalar(2, 1)); }},
  Binding{"sub", member, [](A a) { return a.tensor(0).sub(a.tensor(1), a.scalar(2, 1)); }},
  Binding{"mul", member, [](A a) { return a.tensor(0).mul(a.tensor(1)); }},
  Binding{"div", member, [](A a) { return a.tensor(0).div(a.tensor(1)); }},
  Binding{"pow", member, [](A a) { return a.tensor(0).pow(a.tensor(1)); }},
  Binding{"maximum", member, [](A a) { return a.tensor(0).maximum(a.tensor(1)); }},
  Binding{"minimum", member, [](A a) { return a.tensor(0).minimum(a.tensor(1)); }},
  Binding{"logical_and", member, [](A a) { return a.tensor(0).logical_and(a.tensor(1)); }},
  Binding{"logical_or", member, [](A a) { return a.tensor(0).logical_or(a.tensor(1)); }},
  Binding{"div", free_function, [](A a) { return vmap::div(a.tensor(0), a.tensor(1), rounding_mode(a, 2)); }},
  Binding{"div", member, [](A a) { return a.tensor(0).div(a.tensor(1), rounding_mode(a, 2)); }},
  Binding{"where", free_function, [](A a) { return vmap::where(a.tensor(0), a.tensor(1), a.tensor(2)); }},
  Binding{"clamp", member, clamp_reference},
  Binding{"clamp", free_function, clamp_reference},
  Binding{"sum", member, [](A a) { return a.tensor(0).sum(); }},
  Binding{"sum", member, [](A a) { return a.tensor(0).sum(a.integers(1), a.flag(2)); }},
  Binding{"sum", member, [](A a) { return a.tensor(0).sum(a.integers(1), a.flag(2)); }},
  Binding{"mean", member, [](A a) { return a.tensor(0).mean(); }},
  Binding{"mean", member, [](A a) { return a.tensor(0).mean(a.integers(1), a.flag(2)); }},
  Binding{"mean", member, [](A a) { return a.tensor(0).mean(a.integers(1), a.flag(2)); }},
  Binding{"amax", member, [](A a) { return a.tensor(0).amax(a.integers(1), a.flag(2)); }},
  Binding{"amin", member, [](A a) { return a.tensor(0).amin(a.integers(1), a.flag(2)); }},
  Binding{"argmax", member, [](A a) { return a.tensor(0).argmax(); }},
  Binding{"argmax", member, [](A a) { return a.tensor(0).argmax(a.integer(1), a.flag(2)); }},
  Binding{"argmin", member, [](A a) { return a.tensor(0).argmin(); }},
  Binding{"argmin", member, [](A a) { return a.tensor(0).argmin(a.integer(1), a.flag(2)); }},
  Binding{"any", member, [](A a) { return a.tensor(0).any(); }},
  Binding{"any", member, [](A a) { return a.tensor(0).any(a.integer(1), a.flag(2)); }},
  Binding{"all", member, [](A a) { return a.tensor(0).all(); }},
  Binding{"all", member, [](A a) { return a.tensor(0).all(a.integer(1), a.flag(2)); }},
  Binding{"sum", free_function, [](A a) { return vmap::sum(a.tensor(0)); }},
  Binding{"sum", free_function, [](A a) { return vmap::sum(a.tensor(0), a.integers(1), a.flag(2)); }},
  Binding{"sum", free_function, [](A a) { return vmap::sum(a.tensor(0), a.integers(1), a.flag(2)); }},
  Binding{"mean", free_function, [](A a) { return vmap::mean(a.tensor(0)); }},
  Binding{"mean", free_function, [](A a) { return vmap::mean(a.tensor(0), a.integers(1), a.flag(2)); }},
  Binding{"mean", free_function, [](A a) { return vmap::mean(a.tensor(0), a.integers(1), a.flag(2)); }},
  Binding{"amax", free_function, [](A a) { return vmap::amax(a.tensor(0), a.integers(1), a.flag(2)); }},
  Binding{"amin", free_function, [](A a) { return vmap::amin(a.tensor(0), a.integers(1), a.flag(2)); }},
  Binding{"argmax", free_function, [](A a) { return vmap::argmax(a.tensor(0)); }},
  Binding{"argmax", free_function, [](A a) { return vmap::argmax(a.tensor(0), a.integer(1), a.flag(2)); }},
  Binding{"argmin", free_function, [](A a) { return vmap::argmin(a.tensor(0)); }},
  Binding{"argmin", free_function, [](A a) { return vmap::argmin(a.tensor(0), a.integer(1), a.flag(2)); }},
  Binding{"any", free_function, [](A a) { return vmap::any(a.tensor(0)); }},
  Binding{"any", free_function, [](A a) { return vmap::any(a.tensor(0), a.integer(1), a.flag(2)); }},
  Binding{"all", free_function, [](A a) { return vmap::all(a.tensor(0)); }},
  Binding{"all", free_function, [](A a) { return vmap::all(a.tensor(0), a.integer(1), a.flag(2)); }},
  Binding{"equal", free_function, [](A a) { return flag_tensor(vmap::equal(a.tensor(0), a.tensor(1))); }},
  Binding{"allclose", free_function, [](A a) {
    const double rtol = a.given(2) ? a.scalar(2).to_double() : 1e-05;
    const double atol = a.given(3) ? a.scalar(3).to_double() : 1e-08;
    return flag_tensor(vmap::allclose(a.tensor(0), a.tensor(1), rtol, atol));
  }},
  Binding{"cumsum", member, [](A a) { return a.tensor(0).cumsum(a.integer(1)); }},
  Binding{"cumsum", free_function, [](A a) { return vmap::cumsum(a.tensor(0), a.integer(1)); }},
  Binding{"cumprod", member, [](A a) { return a.tensor(0).cumprod(a.integer(1)); }},
  Binding{"cumprod", free_function, [](A a) { return vmap::cumprod(a.tensor(0), a.integer(1)); }},
  Binding{"logsumexp", member, [](A a) { return a.tensor(0).logsumexp(a.integers(1), a.flag(2)); }},
  Binding{"logsumexp", free_function, [](A a) { return vmap::logsumexp(a.tensor(0), a.integers(1), a.flag(2)); }},
  Binding{"var", member, [](A a) { return a.tensor(0).var(a.integers(1), a.flag(2, true), a.flag(3)); }},
  Binding{"var", free_function, [](A a) { return vmap::var(a.tensor(0), a.integers(1), a.flag(2, true), a.flag(3)); }},
  Binding{"std", member, [](A a) { return a.tensor(0).std(a.integers(1), a.flag(2, true), a.flag(3)); }},
  Binding{"std", free_function, [](A a) { return vmap::std(a.tensor(0), a.integers(1), a.flag(2, true), a.flag(3)); }},
  Binding{"norm", member, [](A a) { return a.tensor(0).norm(a.scalar(1), a.integers(2), a.flag(3)); }},
  Binding{"norm", free_function, [](A a) { return vmap::norm(a.tensor(0), a.scalar(1), a.integers(2), a.flag(3)); }},
  Binding{"masked_fill", member, masked_fill_reference},
  Binding{"masked_fill", free_function, masked_fill_reference},
  Binding{"lerp", member, [](A a) { return vmap::lerp(a.tensor(0), a.tensor(1), a.tensor(2)); }},
  Binding{"lerp", free_function, [](A a) { return vmap::lerp(a.tensor(0), a.tensor(1), a.tensor(2)); }},
  Binding{"sort", member, [](A a) { return std::get<1>(a.tensor(0).sort(a.integer(1, -1), a.flag(2))); }},
  Binding{"sort", free_function, [](A a) { return std::get<1>(vmap::sort(a.tensor(0), a.integer(1, -1), a.flag(2))); }},
  Binding{"argsort", member, [](A a) { return a.tensor(0).argsort(a.integer(1, -1), a.flag(2)); }},
  Binding{"argsort", free_function, [](A a) { return vmap::argsort(a.tensor(0), a.integer(1, -1), a.flag(2)); }},
  Binding{"topk", member, [](A a) {
    return std::get<1>(a.tensor(0).topk(a.integer(1), a.integer(2, -1), a.flag(3, true), a.flag(4, true)));
  }},
  Binding{"topk", free_function, [](A a) {
    return std::get<1>(vmap::topk(a.tensor(0), a.integer(1), a.integer(2, -1), a.flag(3, true), a.flag(4, true)));
  }},
  Binding{"one_hot", free_function, [](A a) { return vmap::one_hot(a.tensor(0), a.integer(1, -1)); }},
  Binding{"gelu", free_function, [](A a) { return vmap::gelu(a.tensor(0), a.text(1, "none")); }},
  Binding{"softplus", free_function, [](A a) { return vmap::softplus(a.tensor(0), a.scalar(1, 1), a.scalar(2, 20)); }},
  Binding{"softmax", free_function, [](A a) { return vmap::softmax(a.tensor(0), a.integer(1)); }},
  Binding{"softmax", member, [](A a) { return a.tensor(0).softmax(a.integer(1)); }},
  Binding{"log_softmax", free_function, [](A a) { return vmap::log_softmax(a.tensor(0), a.integer(1)); }},
  Binding{"log_softmax", member, [](A a) { return a.tensor(0).log_softmax(a.integer(1)); }},
  Binding{"triu", free_function, [](A a) { return vmap::triu(a.tensor(0), a.integer(1)); }},
  Binding{"tril", free_function, [](A a) { return vmap::tril(a.tensor(0), a.integer(1)); }},
  Binding{"triu", member, [](A a) { return a.tensor(0).triu(a.integer(1)); }},
  Binding{"tril", member, [](A a) { return a.tensor(0).tril(a.integer(1)); }},
  Binding{"operator[]", member, [](A a) { return a.tensor(0)[a.integer(1)]; }},
  Binding{"select", member, [](A a) { return a.tensor(0).select(a.integer(1), a.integer(2)); }},
  Binding{"narrow", member, [](A a) { return a.tensor(0).narrow(a.integer(1), a.integer(2), a.integer(3)); }},
  Binding{"unsqueeze", member, [](A a) { return a.tensor(0).unsqueeze(a.integer(1)); }},
  Binding{"squeeze", member, [](A a) { return a.tensor(0).squeeze(); }},
  Binding{"squeeze", member, [](A a) { return a.tensor(0).squeeze(a.integer(1)); }},
  Binding{"expand", member, [](A a) { return a.tensor(0).expand(a.integers(1)); }},
  Binding{"expand_as", member, [](A a) { return a.tensor(0).expand_as(a.tensor(1)); }},
  Binding{"reshape", member, [](A a) { return a.tensor(0).reshape(a.integers(1)); }},
  Binding{"view", member, [](A a) { return a.tensor(0).view(a.integers(1)); }},
  Binding{"transpose", member, [](A a) { return a.tensor(0).transpose(a.integer(1), a.integer(2)); }},
  Binding{"t", member, [](A a) { return a.tensor(0).t(); }},
  Binding{"permute", member, [](A a) { return a.tensor(0).permute(a.integers(1)); }},
  Binding{"flatten", member, [](A a) { return a.tensor(0).flatten(a.integer(1, 0), a.integer(2, -1)); }},
  Binding{"movedim", member, [](A a) { return a.tensor(0).movedim(a.integer(1), a.integer(2)); }},
  Binding{"movedim", member, [](A a) { return a.tensor(0).movedim(a.integers(1), a.integers(2)); }},
  Binding{"narrow", free_function, [](A a) { return vmap::narrow(a.tensor(0), a.integer(1), a.integer(2), a.integer(3)); }},
  Binding{"unsqueeze", free_function, [](A a) { return vmap::unsqueeze(a.tensor(0), a.integer(1)); }},
  Binding{"squeeze", free_function, [](A a) { return vmap::squeeze(a.tensor(0)); }},
  Binding{"squeeze", free_function, [](A a) { return vmap::squeeze(a.tensor(0), a.integer(1)); }},
  Binding{"expand", free_function, [](A a) { return vmap::expand(a.tensor(0), a.integers(1)); }},
  Binding{"reshape", free_function, [](A a) { return vmap::reshape(a.tensor(0), a.integers(1)); }},
  Binding{"transpose", free_function, [](A a) { return vmap::transpose(a.tensor(0), a.integer(1), a.integer(2)); }},
  Binding{"permute", free_function, [](A a) { return vmap::permute(a.tensor(0), a.integers(1)); }},
  Binding{"movedim", free_function, [](A a) { return vmap::movedim(a.tensor(0), a.integer(1), a.integer(2)); }},
  Binding{"movedim", free_function, [](A a) { return vmap::movedim(a.tensor(0), a.integers(1), a.integers(2)); }},
  Binding{"flatten", free_function, [](A a) { return vmap::flatten(a.tensor(0), a.integer(1, 0), a.integer(2, -1)); }},
  Binding{"index_select", member, [](A a) { return a.tensor(0).index_select(a.integer(1), a.tensor(2)); }},
  Binding{"gather", member, [](A a) { return a.tensor(0).gather(a.integer(1), a.tensor(2)); }},
  Binding{"index_select", free_function, [](A a) { return vmap::index_select(a.tensor(0), a.integer(1), a.tensor(2)); }},
  Binding{"gather", free_function, [](A a) { return vmap::gather(a.tensor(0), a.integer(1), a.tensor(2)); }},
  Binding{"matmul", member, [](A a) { return a.tensor(0).matmul(a.tensor(1)); }},
  Binding{"matmul", free_function, [](A a) { return vmap::matmul(a.tensor(0), a.tensor(1)); }},
  Binding{"mm", free_function, [](A a) { return vmap::mm(a.tensor(0), a.tensor(1)); }},
  Binding{"mv", free_function, [](A a) { return vmap::mv(a.tensor(0), a.tensor(1)); }},
  Binding{"bmm", free_function, [](A a) { return vmap::bmm(a.tensor(0), a.tensor(1)); }},
  Binding{"dot", free_function, [](A a) { return vmap::dot(a.tensor(0), a.tensor(1)); }},
  Binding{"mm", member, [](A a) { return a.tensor(0).mm(a.tensor(1)); }},
  Binding{"mv", member, [](A a) { return a.tensor(0).mv(a.tensor(1)); }},
  Binding{"bmm", member, [](A a) { return a.tensor(0).bmm(a.tensor(1)); }},
  Binding{"dot", member, [](A a) { return a.tensor(0).dot(a.tensor(1)); }},
  Binding{"linear", free_function, [](A a) { return vmap::linear(a.tensor(0), a.tensor(1), optional_tensor(a, 2)); }},
  Binding{"cat", free_function, [](A a) { return vmap::cat(a.tensors(0), a.integer(1)); }},
  Binding{"stack", free_function, [](A a) { return vmap::stack(a.tensors(0), a.integer(1)); }},
  Binding{"zeros_like", free_function, [](A a) { return vmap::zeros_like(a.tensor(0), a.options(1)); }},
  Binding{"ones_like", free_function, [](A a) { return vmap::ones_like(a.tensor(0), a.options(1)); }},
  Binding{"empty_like", free_function, [](A a) { return vmap::empty_like(a.tensor(0), a.options(1)); }},
  Binding{"full_like", free_function, [](A a) {
    return vmap::full_like(a.tensor(0), a.scalar(1), a.options(2));
  }},
  Binding{"copy_", inplace_member, [](A a) { return Tensor(a.tensor(0).copy_(a.tensor(1))); }},
  Binding{"fill_", inplace_member, [](A a) {
    if (std::holds_alternative<TensorArg>(a.raw(1))) return Tensor(a.tensor(0).fill_(a.tensor(1)));
    return Tensor(a.tensor(0).fill_(a.scalar(1)));
  }},
  Binding{"zero_", inplace_member, [](A a) { return Tensor(a.tensor(0).zero_()); }},
  Binding{"operator+=", compound_assign, [](A a) { return Tensor(a.tensor(0) += a.tensor(1)); }},
  Binding{"operator-=", compound_assign, [](A a) { return Tensor(a.tensor(0) -= a.tensor(1)); }},
  Binding{"operator*=", compound_assign, [](A a) { return Tensor(a.tensor(0) *= a.tensor(1)); }},
  Binding{"operator/=", compound_assign, [](A a) { return Tensor(a.tensor(0) /= a.tensor(1)); }},
  Binding{"zeros", free_function, [](A a) { return vmap::zeros(a.integers(0), a.options(1)); }},
  Binding{"ones", free_function, [](A a) { return vmap::ones(a.integers(0), a.options(1)); }},
  Binding{"empty", free_function, [](A a) { return vmap::empty(a.integers(0), a.options(1)); }},
  Binding{"full", free_function, [](A a) { return vmap::full(a.integers(0), a.scalar(1), a.options(2)); }},
  Binding{"arange", free_function, [](A a) { return vmap::arange(a.scalar(0), a.options(1)); }},
  Binding{"arange", free_function, [](A a) {
    return vmap::arange(a.scalar(0), a.scalar(1), a.scalar(2, 1), a.options(3));
  }},
  Binding{"tensor", free_function, [](A a) { return a.tensor(0); }},
  Binding{"from_blob", free_function, refuse},
  Binding{"rand", free_function, refuse},
  Binding{"randn", free_function, refuse},
  Binding{"randint", free_function, refuse},
  Binding{"rand_like", free_function, refuse},
  Binding{"randn_like", free_function, refuse},
  Binding{"bernoulli", free_function, refuse},
  Binding{"bernoulli", free_function, refuse},
  Binding{"manual_seed", free_function, refuse},
  Binding{"operator<<", binary_operator, refuse},
};
// clang-format on

constexpr bool bindings_follow_table() {
  if (kBindings.size() != kOpTable.size()) return false;
  for (std::size_t i = 0; i < kOpTable.size(); ++i)
    if (kBindings[i].name != kOpTable[i].name || kBindings[i].form != kOpTable[i].form)
      return false;
  return true;
}
static_assert(bindings_follow_table(),
              "every op-table entry needs a binding, in table order (Note [Rule registry])");

// The rule of each RuleId, indexed by the enum's value. `registered` records which ids were
// set, so the check below needs no comparison of function addresses: GCC does not accept one
// in a constant expression under -fsanitize (the asan-ubsan preset).
struct RuleTable {
  static constexpr std::size_t kSize = static_cast<std::size_t>(RuleId::refused) + 1;
  std::array<RuleFunction, kSize> functions{};
  std::array<bool, kSize> registered{};
};

constexpr RuleTable kRules = [] {
  RuleTable rules;
  auto set = [&](RuleId id, RuleFunction rule) {
    rules.functions[static_cast<std::size_t>(id)] = rule;
    rules.registered[static_cast<std::size_t>(id)] = true;
  };
  set(RuleId::metadata, metadata_rule);
  set(RuleId::unary_pointwise, pointwise_rule);
  set(RuleId::binary_pointwise, pointwise_rule);
  set(RuleId::ternary_where, pointwise_rule);
  set(RuleId::clamp, pointwise_rule);
  set(RuleId::convert, convert_rule);
  set(RuleId::reduce_all, reduce_all_rule);
  set(RuleId::reduce_dim, reduce_dim_rule);
  set(RuleId::reduce_dims, reduce_dims_rule);
  set(RuleId::arg_reduce_all, reduce_all_rule);  // argmax() is argmax(dim) of the flat example
  set(RuleId::compare_all, compare_all_rule);
  set(RuleId::masked_fill, masked_fill_rule);
  set(RuleId::lerp, lerp_rule);
  set(RuleId::along_dim, along_dim_rule);
  set(RuleId::topk, topk_rule);
  set(RuleId::one_hot, one_hot_rule);
  set(RuleId::triangular, triangular_rule);
  set(RuleId::select, select_rule);
  set(RuleId::narrow, narrow_rule);
  set(RuleId::unsqueeze, shift_dims_rule);
  set(RuleId::squeeze_all, squeeze_all_rule);
  set(RuleId::squeeze_dim, shift_dims_rule);
  set(RuleId::expand, expand_rule);
  set(RuleId::expand_as, expand_as_rule);
  set(RuleId::reshape, reshape_rule);
  set(RuleId::transpose, shift_dims_rule);
  set(RuleId::t, t_rule);
  set(RuleId::permute, permute_rule);
  set(RuleId::movedim, shift_dims_rule);
  set(RuleId::flatten, flatten_rule);
  set(RuleId::index_select, index_select_rule);
  set(RuleId::gather, gather_rule);
  set(RuleId::matmul, matmul_rule);
  set(RuleId::mm, mm_rule);
  set(RuleId::mv, mv_rule);
  set(RuleId::bmm, bmm_rule);
  set(RuleId::dot, dot_rule);
  set(RuleId::linear, linear_rule);
  set(RuleId::cat, cat_rule);
  set(RuleId::stack, stack_rule);
  set(RuleId::like_factory, like_factory_rule);
  set(RuleId::full_like, full_like_rule);
  set(RuleId::full, full_rule);
  set(RuleId::tensor_literal, tensor_literal_rule);
  set(RuleId::copy_into, copy_into_rule);
  set(RuleId::fill_into, fill_into_rule);
  set(RuleId::compound_assign, compound_assign_rule);
  set(RuleId::item, item_rule);
  set(RuleId::loop_invariant, loop_invariant_rule);
  set(RuleId::refused, refused_rule);
  return rules;
}();

constexpr bool every_table_rule_registered() {
  for (const OpEntry& entry : kOpTable)
    if (!kRules.registered[static_cast<std::size_t>(entry.rule)]) return false;
  return true;
}
static_assert(every_table_rule_registered(), "an op-table entry names a rule with no function");

}  // namespace

const TensorArg& CallArgs::tensor_arg(std::size_t i) const {
  if (const auto* tensor = std::get_if<TensorArg>(&at(i))) return *tensor;
  throw Error("vmap rules: argument " + std::to_string(i) + " is not a tensor");
}

const Arg& CallArgs::at(std::size_t i) const {
  if (i >= args_.size()) throw Error("vmap rules: argument " + std::to_string(i) + " missing");
  return args_[i];
}

TensorArg CallArgs::operand(std::size_t i) const {
  if (const auto* tensor = std::get_if<TensorArg>(&at(i))) return *tensor;
  const detail::Scalar value = scalar(i);
  return {vmap::full({}, value, value.dtype()), std::nullopt, true};
}

std::vector<Tensor> CallArgs::tensors(std::size_t i) const {
  std::vector<Tensor> tensors;
  for (const TensorArg& tensor : tensor_args(i)) tensors.push_back(tensor.value);
  return tensors;
}

const std::vector<TensorArg>& CallArgs::tensor_args(std::size_t i) const {
  if (const auto* list = std::get_if<std::vector<TensorArg>>(&at(i))) return *list;
  throw Error("vmap rules: argument " + std::to_string(i) + " is not a tensor list");
}

int64_t CallArgs::integer(std::size_t i, int64_t fallback) const {
  if (!given(i)) return fallback;
  if (const auto* value = std::get_if<int64_t>(&args_[i])) return *value;
  if (const auto* value = std::get_if<detail::Scalar>(&args_[i])) return value->to_int64();
  // One example's per-example integer (run_examples_as_written): the number it holds.
  if (const auto* tensor = std::get_if<TensorArg>(&args_[i]);
      tensor && !tensor->bdim && tensor->value.dim() == 0 &&
      detail::is_integral(tensor->value.dtype()))
    return tensor->value.item<int64_t>();
  throw Error("vmap rules: argument " + std::to_string(i) + " is not an integer");
}

std::vector<int64_t> CallArgs::integers(std::size_t i) const {
  if (!given(i)) return {};
  if (const auto* list = std::get_if<std::vector<int64_t>>(&args_[i])) return *list;
  return {integer(i)};
}

detail::Scalar CallArgs::scalar(std::size_t i) const {
  if (const auto* value = std::get_if<detail::Scalar>(&at(i))) return *value;
  if (const auto* value = std::get_if<int64_t>(&args_[i])) return *value;
  if (const auto* value = std::get_if<bool>(&args_[i])) return *value;
  return tensor(i).item();
}

bool CallArgs::flag(std::size_t i, bool fallback) const {
  if (!given(i)) return fallback;
  if (const auto* value = std::get_if<bool>(&args_[i])) return *value;
  return integer(i) != 0;
}

std::string_view CallArgs::text(std::size_t i, std::string_view fallback) const {
  return given(i) ? std::string_view(std::get<std::string>(at(i))) : fallback;
}

TensorOptions CallArgs::options(std::size_t i) const {
  if (!given(i)) return {};
  if (const auto* options = std::get_if<TensorOptions>(&args_[i])) return *options;
  if (const auto* dtype = std::get_if<Dtype>(&args_[i])) return *dtype;
  return std::get<Device>(args_[i]);
}

Tensor call_reference(std::size_t op, Args args) {
  return kBindings.at(op).reference(CallArgs(args));
}

namespace {

template <typename F>
void for_each_tensor(Args args, F&& visit) {
  for (const Arg& arg : args) {
    if (const auto* tensor = std::get_if<TensorArg>(&arg)) visit(*tensor);
    if (const auto* list = std::get_if<std::vector<TensorArg>>(&arg))
      for (const TensorArg& tensor : *list) visit(tensor);
  }
}

// Note [Errors in per-example shapes]
// A batched call that fails would name the batched shapes (`matmul: shapes [4, 3] and [5, 2]`)
// where the loop as written names one example's (`[3] and [5, 2]`). On that failure path only,
// the op runs as written on each example in loop order; the first example that fails throws
// its own error, which is the loop's. Where none fails (an error only the batched form
// raises), the caller rethrows the batched error. An op that writes its first argument is
// not run again: the examples before the failing one would be written twice.
void run_examples_as_written(std::size_t op, Args args,
                             const std::function<TensorArg(const TensorArg&, int64_t)>& example_of,
                             int64_t examples) {
  for (int64_t example = 0; example < examples; ++example) {
    std::vector<Arg> one(args.begin(), args.end());
    for (Arg& arg : one) {
      if (auto* tensor = std::get_if<TensorArg>(&arg)) *tensor = example_of(*tensor, example);
      if (auto* list = std::get_if<std::vector<TensorArg>>(&arg))
        for (TensorArg& tensor : *list) tensor = example_of(tensor, example);
    }
    call_reference(op, one);  // throws this example's error, if it has one
  }
}

void throw_first_example_error(std::size_t op, Args args) {
  if (kOpTable.at(op).writes_first_argument()) return;
  std::optional<int64_t> examples;
  for_each_tensor(args, [&](const TensorArg& arg) {
    if (arg.bdim && !examples) examples = arg.value.size(*arg.bdim);
  });
  if (!examples) return;
  run_examples_as_written(
      op, args,
      [](const TensorArg& arg, int64_t example) {
        return arg.bdim ? TensorArg{arg.value.select(*arg.bdim, example), std::nullopt,
                                    arg.wrapped_number}
                        : arg;
      },
      *examples);
}

}  // namespace

BatchedResult call_rule(std::size_t op, Args args) {
  // An error inside names the op the rewritten call stands for, not the ops its rule runs
  // (Note [The op the user called] in vmap/types.hpp). An operator's runtime op names itself
  // ("add", "add_"), as the loop as written does, so its table spelling is not used.
  const std::string_view name = kOpTable.at(op).name;
  const vmap::detail::OpName op_name(name.starts_with("operator") ? nullptr : name.data());
  try {
    return kRules.functions[static_cast<std::size_t>(kOpTable.at(op).rule)](op, CallArgs(args));
  } catch (const Error&) {
    throw_first_example_error(op, args);
    throw;
  }
}

void throw_first_example_error(std::size_t op, Args args, int64_t levels) {
  if (kOpTable.at(op).writes_first_argument()) return;
  std::vector<int64_t> level_sizes(static_cast<std::size_t>(levels), 1);
  for_each_tensor(args, [&](const TensorArg& arg) {
    for (int64_t dim = 0; dim < levels && dim < arg.value.dim(); ++dim)
      level_sizes[dim] = std::max(level_sizes[dim], arg.value.size(dim));
  });
  int64_t examples = 1;
  for (int64_t size : level_sizes) examples *= size;
  run_examples_as_written(
      op, args,
      [&](const TensorArg& arg, int64_t example) {
        if (arg.value.dim() < levels) return arg;
        Tensor one = arg.value;  // each level dim at this example's index (0 where size 1)
        for (int64_t dim = levels - 1, rest = example; dim >= 0; --dim) {
          const int64_t index = rest % level_sizes[dim];
          rest /= level_sizes[dim];
          one = one.select(dim, one.size(dim) == 1 ? 0 : index);
        }
        return TensorArg{one, std::nullopt, arg.wrapped_number};
      },
      examples);
}

Tensor call_with(std::size_t op, const CallArgs& args,
                 std::initializer_list<std::pair<std::size_t, Arg>> replacements) {
  std::vector<Arg> replaced;
  replaced.reserve(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) replaced.push_back(args.raw(i));
  for (const auto& [position, arg] : replacements) {
    if (position >= replaced.size()) replaced.resize(position + 1);
    replaced[position] = arg;
  }
  return call_reference(op, replaced);
}

std::size_t sibling_op(std::size_t op, std::initializer_list<ArgKind> params) {
  const std::size_t sibling = find_op(kOpTable[op].name, kOpTable[op].form, params);
  if (sibling == kNoOp)
    throw Error("vmap rules: no form of " + std::string(kOpTable[op].name) +
                " with those arguments");
  return sibling;
}

}  // namespace vmap::rules
