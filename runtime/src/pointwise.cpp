// Every pointwise op: a scalar functor run by the elementwise engine after ATen's dtype
// promotion (Note [Promotion tiers]). Integer arithmetic wraps like torch's (no UB).
#include "internal.hpp"
#include "../cuda/device_ops.hpp"
#include <vmap/detail/promotion.hpp>
#include <vmap/detail/scalar_functors.hpp>

#include <cmath>
#include <limits>
#include <optional>

namespace vmap {
namespace {

using detail::dtype_of;
using detail::elementwise;
using detail::elementwise_into;
using detail::fail;
using detail::Operand;
using detail::Scalar;
using detail::SimdOp;

// The ops' semantics are the device's scalar functors (vmap/detail/scalar_functors.hpp),
// so the CPU engine and the CUDA kernels run one definition; the CPU side adds the SIMD tags.
namespace functors = detail::scalar_functors;
using functors::is_int;

// A functor with its SIMD kernel's tag (SimdOp::none: the engine runs the functor).
template <class F, SimdOp op>
struct WithSimd : F {
  static constexpr SimdOp simd_op = op;
};
using AddOp = WithSimd<functors::Add, SimdOp::add>;
using SubOp = WithSimd<functors::Sub, SimdOp::sub>;
using MulOp = WithSimd<functors::Mul, SimdOp::mul>;
using DivOp = WithSimd<functors::Div, SimdOp::div>;  // true division: floating types only
using MaxOp = WithSimd<functors::Maximum, SimdOp::max>;
using MinOp = WithSimd<functors::Minimum, SimdOp::min>;
using WhereOp = WithSimd<functors::Where, SimdOp::where>;
using LogicalAndOp = WithSimd<functors::LogicalAnd, SimdOp::logical_and>;
using LogicalOrOp = WithSimd<functors::LogicalOr, SimdOp::logical_or>;

// Float to integer conversion without UB: NaN and out-of-range values give the minimum, as
// x86's conversion instructions (and so LibTorch there) do.
template <class To, class From>
To convert(From value) {
  return functors::Convert<To>{}(value);
}

// An operand: a tensor (borrowed for the call, not copied: refcounts are the bulk of a small
// op's cost), or a C++ number (an ATen "wrapped number").
struct Arg {
  // An undefined tensor gets no operand: promote() then fails naming the op.
  Arg(const Tensor& tensor)
      : tensor(&tensor), operand(tensor.defined() ? detail::operand_of(tensor) : Operand{}) {}
  Arg(Scalar number) : number(number), operand(detail::operand_of(number)) {}
  // The operand as a tensor of `dtype`: the tensor itself when it has that dtype, else a
  // converted copy that lives as long as this Arg.
  const Tensor& as(Dtype dtype) const {
    if (number) return converted = detail::scalar_tensor(*number, dtype);
    if (tensor->dtype() == dtype) return *tensor;
    return converted = tensor->to(dtype);
  }
  const Tensor* tensor = nullptr;
  std::optional<Scalar> number;
  Operand operand;
  mutable Tensor converted;
};

// The operands' common dtype; the error naming `name` when either is an undefined tensor.
Dtype promote(const char* name, const Arg& a, const Arg& b) {
  if (a.tensor) detail::impl_of(*a.tensor, name);
  if (b.tensor) detail::impl_of(*b.tensor, name);
  if (a.tensor && b.tensor && a.operand.dtype == b.operand.dtype) return a.operand.dtype;
  return detail::result_type({a.operand, b.operand});
}
// Whether an integer divisor has a zero (on either device: any() is a device reduction).
bool has_zero(const Tensor& divisor) { return any(eq(divisor, 0)).item<bool>(); }

Dtype floating_or_default(Dtype dtype) { return detail::is_floating(dtype) ? dtype : kFloat32; }

template <class Op>
Tensor binary(const char* name, const Arg& a, const Arg& b, Op op, Dtype dtype) {
  return detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    return elementwise<T, T, T>(name, {&a.as(dtype), &b.as(dtype)}, op);
  });
}
template <class Op>
Tensor binary(const char* name, const Arg& a, const Arg& b, Op op) {
  return binary(name, a, b, op, promote(name, a, b));
}

template <class Op>
Tensor compare(const char* name, const Arg& a, const Arg& b, Op op) {
  const Dtype dtype = promote(name, a, b);
  return detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    return elementwise<bool, T, T>(name, {&a.as(dtype), &b.as(dtype)}, op);
  });
}

bool same_geometry(const Tensor& a, const Tensor& b) {
  return a.raw_data() == b.raw_data() && a.sizes() == b.sizes() && a.strides() == b.strides();
}

// self op= other, in place. The promoted type must be castable to self's dtype.
template <class Op>
const Tensor& binary_in_place(const char* name, const Tensor& self, const Arg& other, Op op,
                              bool true_division = false) {
  detail::check_writable(name, self);
  if (other.tensor) detail::impl_of(*other.tensor, name);
  detail::note_op();
  Dtype dtype = detail::result_type({detail::operand_of(self), other.operand});
  if (true_division) dtype = floating_or_default(dtype);
  if (!detail::can_cast(dtype, self.dtype()))
    fail(name, "result type ", dtype, " can't be cast to the desired output type ", self.dtype());
  Tensor rhs = other.as(dtype);
  if (!detail::broadcastable_to(rhs.sizes(), self.sizes()))
    fail(name, "output with shape ", detail::shape_str(self.sizes()),
         " doesn't match the broadcast shape ",
         detail::shape_str(detail::broadcast_shapes(name, self.sizes(), rhs.sizes())));
  if (dtype != self.dtype()) {
    self.copy_(binary(name, self, rhs, op, dtype));
    return self;
  }
  if (detail::overlaps(self, rhs) && !same_geometry(self, rhs)) rhs = rhs.clone();
  detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    elementwise_into<T, T, T>(name, self, {self, rhs}, op);
  });
  return self;
}

template <class F>
Tensor unary_same(const char* name, const Tensor& self, F f) {
  return detail::visit_dtype(detail::impl_of(self, name).dtype, [&]<class T>(std::type_identity<T>) {
    return elementwise<T, T>(name, {self}, [f](T x) { return f(x); });
  });
}

// The ops of the pointwise op list (Note [Pointwise op list] in pointwise_ops.def).
enum class Domain { float_math, same_type };

template <class F, class T>
[[noreturn]] void fail_not_implemented(const char* name) {
  fail(name, "\"", name, "\" not implemented for '", dtype_of<T>, "'");
}

template <class F>
Tensor unary_op(const char* name, const Tensor& self, Domain domain, int64_t cost) {
  Dtype dtype = detail::impl_of(self, name).dtype;
  if (domain == Domain::float_math) dtype = floating_or_default(dtype);
  if constexpr (requires { F::bool_computes_in_int64; })
    if (dtype == kBool) dtype = kInt64;
  return detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) -> Tensor {
    if constexpr (!functors::accepts_type<F, T>()) fail_not_implemented<F, T>(name);
    else return elementwise<T, T>(name, {self}, F{}, cost);
  });
}

template <class F>
Tensor binary_op(const char* name, const Arg& a, const Arg& b, Domain domain) {
  Dtype dtype = promote(name, a, b);
  if (domain == Domain::float_math) dtype = floating_or_default(dtype);
  return detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) -> Tensor {
    if constexpr (!functors::accepts_type<F, T>()) {
      fail_not_implemented<F, T>(name);
    } else {
      if constexpr (is_int<T> && requires { F::integer_divisor; })
        if (has_zero(b.as(dtype))) fail(name, "ZeroDivisionError");
      return binary(name, a, b, F{}, dtype);
    }
  });
}

// LibTorch's sub_check on the operands as given (a bool number is a bool operand).
void check_subtraction(const char* name, const Arg& a, const Arg& b) {
  detail::check_subtraction(name, a.operand.dtype, b.operand.dtype);
}

Tensor add_alpha(const char* name, const Arg& a, const Arg& b, Scalar alpha, bool subtract) {
  const Dtype dtype = promote(name, a, b);
  if (alpha.is_floating() && !detail::is_floating(dtype))
    fail(name, "for integral input tensors, argument alpha must not be a floating point number");
  if (subtract) check_subtraction(name, a, b);
  if (alpha.is_integral() && alpha.to_int64() == 1)
    return subtract ? binary(name, a, b, SubOp{}, dtype) : binary(name, a, b, AddOp{}, dtype);
  // alpha is an operand, not captured state, so the device runs the same form (Note [Device
  // ops]): (name, 3 inputs) is x + alpha * y, or x - alpha * y.
  detail::check_convertible(name, alpha, dtype);
  const Tensor factor = detail::scalar_tensor(alpha, dtype);
  return detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    if (subtract)
      return elementwise<T, T, T, T>(name, {a.as(dtype), b.as(dtype), factor},
                                     functors::SubScaled{});
    return elementwise<T, T, T, T>(name, {a.as(dtype), b.as(dtype), factor},
                                   functors::AddScaled{});
  });
}

Tensor true_divide(const Arg& a, const Arg& b) {
  return binary("div", a, b, DivOp{}, floating_or_default(promote("div", a, b)));
}

// Note [pow strength reduction]
// ATen computes a tensor to a scalar power of 2, 3 or -2 with multiplies and of 0.5, -0.5
// or -1 as sqrt, rsqrt (1 / sqrt) and reciprocal, in that order of operations
// (pow_tensor_scalar_optimized_kernel), and a power of 0 or 1 as a fill or a copy; so do we:
// the results are LibTorch's bit for bit, and x.pow(2) is x * x, the same kernel. Other
// integer powers take repeated squaring (one multiply pass per step, x^32 five; within
// (n - 1) roundings of std::pow, where a call per element costs ten times a pass), up to
// power_form's bound (1024 for float, past which std::pow is closer than SPEC's tolerance
// allows squaring to be). Which form an exponent
// takes is scalar_functors.hpp's power_form, which the fused kernels' pow on one element
// applies too (vmap/fused_element.hpp), so a fused x.pow(e) is the eager one bit for bit. A
// one-element exponent tensor that does not broadcast the result counts as a scalar: the
// batched code passes `x.pow(2)`'s 2 as one, and so do the pending blocks
// (rules/src/batched/batched_fused.cpp). The device composes the same forms from its own ops
// (mul, div, sqrt).
std::optional<double> scalar_exponent(const Arg& base, const Arg& exponent) {
  if (!base.tensor) return std::nullopt;
  if (exponent.number) return exponent.number->to_double();
  const Tensor& e = *exponent.tensor;
  if (e.numel() != 1 || e.device() != kCPU || e.dim() > base.tensor->dim()) return std::nullopt;
  return e.item().to_double();
}

// A power form by its SIMD kernel (the CPU's; the device composes it of its ops).
template <class F, SimdOp op>
Tensor simd_power(const Tensor& x, int64_t cost) {
  return unary_op<WithSimd<F, op>>("pow", x, Domain::float_math, cost);
}

// x (of the result's dtype) to the power e in the form power_form gives; nullopt for Pow's.
std::optional<Tensor> reduced_power(const Tensor& x, double e) {
  using enum functors::PowerForm;
  const bool cpu = x.device() == kCPU;
  const int digits = x.dtype() == kFloat64 ? std::numeric_limits<double>::digits
                                            : std::numeric_limits<float>::digits;
  switch (functors::power_form(e, detail::is_floating(x.dtype()), digits)) {
    case one: return detail::empty_tensor(x.sizes(), x.dtype(), x.device()).fill_(1);
    case identity: return x.clone();
    case square: return mul(x, x);
    case cube: return cpu ? simd_power<functors::Cube, SimdOp::cube>(x, 1) : mul(mul(x, x), x);
    case sqrt: return vmap::sqrt(x);
    case rsqrt:
      return cpu ? simd_power<functors::Rsqrt, SimdOp::rsqrt>(x, 2)
                 : true_divide(Scalar(1), vmap::sqrt(x));
    case reciprocal: return true_divide(Scalar(1), x);
    case inverse_square:
      return cpu ? simd_power<functors::InverseSquare, SimdOp::inverse_square>(x, 2)
                 : true_divide(Scalar(1), mul(x, x));
    case repeated_squaring: {
      const Tensor positive = functors::power_by_squaring(
          x, static_cast<int64_t>(std::abs(e)),
          [](const Tensor& a, const Tensor& b) { return mul(a, b); });
      return e > 0 ? positive : true_divide(Scalar(1), positive);
    }
    case general: return std::nullopt;
  }
  return std::nullopt;
}

Tensor power(const Arg& base, const Arg& exponent) {
  const Dtype dtype = promote("pow", base, exponent);
  if (exponent.number && detail::is_integral(dtype) && exponent.number->to_int64() < 0)
    fail("pow", "integers to negative integer powers are not allowed (exponent ",
         exponent.number->to_int64(), ")");
  if (dtype == kBool) fail("pow", "not implemented for 'Bool'");
  if (const std::optional<double> e = scalar_exponent(base, exponent))
    if (std::optional<Tensor> reduced = reduced_power(base.as(dtype), *e)) return *reduced;
  return binary("pow", base, exponent, functors::Pow{}, dtype);
}

Tensor clamp_args(const Tensor& self, const std::optional<Arg>& lo, const std::optional<Arg>& hi) {
  const detail::OpName op_name("clamp");  // Note [The op the user called]
  if (!lo && !hi) fail("clamp", "at least one of 'min' or 'max' must not be None");
  Dtype dtype = detail::operand_of(self).dtype;
  std::vector<Operand> operands{detail::operand_of(self)};
  if (lo) operands.push_back(lo->operand);
  if (hi) operands.push_back(hi->operand);
  dtype = detail::result_type(operands);
  // A missing bound is the widest one of the dtype, so both forms are one three-operand op
  // (a captured bound could not run on the device: Note [Device ops]).
  return detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    using limits = std::numeric_limits<T>;
    const Tensor no_lower = detail::scalar_tensor(
        limits::has_infinity ? -limits::infinity() : limits::lowest(), dtype);
    const Tensor no_upper = detail::scalar_tensor(
        limits::has_infinity ? limits::infinity() : limits::max(), dtype);
    return elementwise<T, T, T, T>("clamp", {self.to(dtype), lo ? lo->as(dtype) : no_lower,
                                             hi ? hi->as(dtype) : no_upper},
                                   functors::Clamp{});
  });
}

Tensor where_args(const Tensor& condition, const Arg& a, const Arg& b) {
  if (detail::impl_of(condition, "where").dtype != kBool)
    fail("where", "expected condition to be a boolean tensor, but got a tensor with dtype ",
         condition.dtype());
  const Dtype dtype = promote("where", a, b);
  return detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    return elementwise<T, bool, T, T>("where", {condition, a.as(dtype), b.as(dtype)},
                                      WhereOp{});
  });
}

Tensor bitwise(const char* name, const Tensor& a, const Tensor& b, bool is_and) {
  const Dtype dtype = promote(name, a, b);
  if (detail::is_floating(dtype)) fail(name, "not implemented for '", dtype, "'");
  return detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_floating_point_v<T>) return Tensor();  // rejected above
    else if (is_and) return elementwise<T, T, T>(name, {a.to(dtype), b.to(dtype)}, functors::BitwiseAnd{});
    else return elementwise<T, T, T>(name, {a.to(dtype), b.to(dtype)}, functors::BitwiseOr{});
  });
}


}  // namespace

// --- arithmetic
Tensor add(const Tensor& self, const Tensor& other, Scalar alpha) {
  return add_alpha("add", self, other, alpha, false);
}
Tensor add(const Tensor& self, Scalar other, Scalar alpha) {
  return add_alpha("add", self, other, alpha, false);
}
Tensor sub(const Tensor& self, const Tensor& other, Scalar alpha) {
  return add_alpha("sub", self, other, alpha, true);
}
Tensor sub(const Tensor& self, Scalar other, Scalar alpha) {
  return add_alpha("sub", self, other, alpha, true);
}
Tensor mul(const Tensor& self, const Tensor& other) { return binary("mul", self, other, MulOp{}); }
Tensor mul(const Tensor& self, Scalar other) { return binary("mul", self, other, MulOp{}); }
Tensor div(const Tensor& self, const Tensor& other) { return true_divide(self, other); }
Tensor div(const Tensor& self, Scalar other) { return true_divide(self, other); }
Tensor maximum(const Tensor& self, const Tensor& other) { return binary("maximum", self, other, MaxOp{}); }
Tensor minimum(const Tensor& self, const Tensor& other) { return binary("minimum", self, other, MinOp{}); }
Tensor pow(const Tensor& self, const Tensor& exponent) { return power(self, exponent); }
Tensor pow(const Tensor& self, Scalar exponent) { return power(self, exponent); }
Tensor pow(Scalar self, const Tensor& exponent) { return power(self, exponent); }

Tensor neg(const Tensor& self) {
  if (detail::impl_of(self, "neg").dtype == kBool)
    fail("neg", "negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  return unary_same("neg", self, functors::Neg{});
}
Tensor abs(const Tensor& self) {
  if (detail::impl_of(self, "abs").dtype == kBool) fail("abs", "not implemented for 'Bool'");
  return unary_same("abs", self, functors::Abs{});
}
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost)                                   \
  Tensor name(const Tensor& self) {                                                       \
    return unary_op<WithSimd<functors::Functor, SimdOp::simd>>(#name, self, Domain::domain, \
                                                               cost);                      \
  }
#define VMAP_BINARY_OP(name, Functor, domain)                                          \
  Tensor name(const Tensor& self, const Tensor& other) {                               \
    return binary_op<functors::Functor>(#name, self, other, Domain::domain);           \
  }                                                                                    \
  Tensor name(const Tensor& self, Scalar other) {                                      \
    return binary_op<functors::Functor>(#name, self, other, Domain::domain);           \
  }
#define VMAP_COMPARISON_OP(name, Functor, symbol)                                             \
  Tensor name(const Tensor& self, const Tensor& other) {                                      \
    return compare(#name, self, other, WithSimd<functors::Functor, SimdOp::name>{});          \
  }                                                                                           \
  Tensor name(const Tensor& self, Scalar other) {                                             \
    return compare(#name, self, other, WithSimd<functors::Functor, SimdOp::name>{});          \
  }                                                                                           \
  Tensor operator symbol(const Tensor& a, const Tensor& b) { return name(a, b); }             \
  Tensor operator symbol(const Tensor& a, Scalar b) { return name(a, b); }                    \
  Tensor operator symbol(Scalar a, const Tensor& b) {                                         \
    return compare(#name, a, b, WithSimd<functors::Functor, SimdOp::name>{});                 \
  }
#include <vmap/detail/pointwise_ops.def>

Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  std::optional<Arg> lo, hi;
  if (min) lo.emplace(*min);
  if (max) hi.emplace(*max);
  return clamp_args(self, lo, hi);
}
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  std::optional<Arg> lo, hi;
  if (min && min->defined()) lo.emplace(*min);
  if (max && max->defined()) hi.emplace(*max);
  return clamp_args(self, lo, hi);
}

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  return where_args(condition, self, other);
}
Tensor where(const Tensor& condition, Scalar self, const Tensor& other) {
  return where_args(condition, self, other);
}
Tensor where(const Tensor& condition, const Tensor& self, Scalar other) {
  return where_args(condition, self, other);
}
Tensor where(const Tensor& condition, Scalar self, Scalar other) {
  return where_args(condition, self, other);
}

// --- logic

Tensor logical_and(const Tensor& self, const Tensor& other) {
  return elementwise<bool, bool, bool>("logical_and", {self, other}, LogicalAndOp{});
}
Tensor logical_or(const Tensor& self, const Tensor& other) {
  return elementwise<bool, bool, bool>("logical_or", {self, other}, LogicalOrOp{});
}
Tensor logical_not(const Tensor& self) {
  return elementwise<bool, bool>("logical_not", {self}, functors::LogicalNot{});
}
Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise("bitwise_and", a, b, true); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise("bitwise_or", a, b, false); }
Tensor operator!(const Tensor& self) { return logical_not(self); }

// --- arithmetic operators
Tensor operator-(const Tensor& self) { return neg(self); }
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, Scalar b) { return add(a, b); }
Tensor operator+(Scalar a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, Scalar b) { return sub(a, b); }
Tensor operator-(Scalar a, const Tensor& b) { return add_alpha("sub", a, b, 1, true); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, Scalar b) { return mul(a, b); }
Tensor operator*(Scalar a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, Scalar b) { return div(a, b); }
Tensor operator/(Scalar a, const Tensor& b) { return true_divide(a, b); }
Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator%(const Tensor& a, Scalar b) { return remainder(a, b); }
Tensor operator%(Scalar a, const Tensor& b) {
  const detail::OpName op_name("remainder");  // Note [The op the user called]
  return remainder(full_like(b, a), b);
}

// --- in place
Tensor& Tensor::operator+=(const Tensor& other) const {
  binary_in_place("add_", *this, other, AddOp{});
  return self();
}
Tensor& Tensor::operator+=(Scalar other) const {
  binary_in_place("add_", *this, other, AddOp{});
  return self();
}
Tensor& Tensor::operator-=(const Tensor& other) const {
  check_subtraction("sub_", self(), other);
  binary_in_place("sub_", *this, other, SubOp{});
  return self();
}
Tensor& Tensor::operator-=(Scalar other) const {
  check_subtraction("sub_", self(), other);
  binary_in_place("sub_", *this, other, SubOp{});
  return self();
}
Tensor& Tensor::operator*=(const Tensor& other) const {
  binary_in_place("mul_", *this, other, MulOp{});
  return self();
}
Tensor& Tensor::operator*=(Scalar other) const {
  binary_in_place("mul_", *this, other, MulOp{});
  return self();
}
Tensor& Tensor::operator/=(const Tensor& other) const {
  binary_in_place("div_", *this, other, DivOp{}, true);
  return self();
}
Tensor& Tensor::operator/=(Scalar other) const {
  binary_in_place("div_", *this, other, DivOp{}, true);
  return self();
}

Tensor& Tensor::copy_(const Tensor& src) const {
  detail::check_writable("copy_", *this);
  if (detail::impl_of(src, "copy_").device() != device()) return copy_(src.to(device()));
  detail::note_op();
  if (!detail::broadcastable_to(src.sizes(), sizes()))
    fail("copy_", "the source of shape ", detail::shape_str(src.sizes()),
         " cannot be broadcast to the destination of shape ", detail::shape_str(sizes()));
  const Tensor source = detail::overlaps(*this, src) && !same_geometry(*this, src) ? src.clone() : src;
  if (dtype() == source.dtype() && is_contiguous() && source.is_contiguous() &&
      sizes() == source.sizes()) {
    if (raw_data() == source.raw_data()) return self();
    if (device() != kCPU) {
      detail::copy_bytes(*this, source, static_cast<size_t>(numel() * element_size()));
      return self();
    }
    char* to = static_cast<char*>(raw_data());
    const char* from = static_cast<const char*>(source.raw_data());
    const int64_t width = element_size();
    detail::parallel_for(numel(), 1, [&](int64_t begin, int64_t end) {
      std::memcpy(to + begin * width, from + begin * width, static_cast<size_t>((end - begin) * width));
    });
    return self();
  }
  detail::visit_dtype(dtype(), [&]<class To>(std::type_identity<To>) {
    detail::visit_dtype(source.dtype(), [&]<class From>(std::type_identity<From>) {
      elementwise_into<To, From>("copy_", *this, {source}, [](From x) { return convert<To>(x); });
    });
  });
  return self();
}

Tensor& Tensor::fill_(Scalar value) const {
  detail::check_writable("fill_", *this);
  detail::note_op();
  detail::visit_dtype(dtype(), [&]<class T>(std::type_identity<T>) {
    const T filler = value.checked_to<T>("fill_");
    const T zero{};
    if (device() == kCPU && is_contiguous() && std::memcmp(&filler, &zero, sizeof(T)) == 0) {
      // zeros(): memset's stores are wider, and cache-bypassing on large tensors.
      char* data = static_cast<char*>(raw_data());
      detail::parallel_for(numel(), 1, [&](int64_t begin, int64_t end) {
        std::memset(data + begin * sizeof(T), 0, static_cast<size_t>(end - begin) * sizeof(T));
      });
      return;
    }
    elementwise_into<T>("fill_", *this, detail::TensorRefs<0>{}, [filler]() { return filler; });
  });
  return self();
}

Tensor& Tensor::fill_(const Tensor& value) const {
  const detail::OpName op_name("fill_");  // Note [The op the user called]
  if (value.dim() != 0)
    fail("fill_", "only supports 0-dimension value tensor but got tensor with ", value.dim(),
         " dimensions");
  return fill_(value.item());
}

Tensor& Tensor::zero_() const {
  detail::impl_of(*this, "zero_");
  return fill_(0);
}

Tensor Tensor::to(Dtype dtype) const {
  const auto& impl = detail::impl_of(*this, "to");
  if (impl.dtype == dtype) return *this;
  Tensor result = detail::empty_tensor(impl.sizes, dtype, impl.device());
  result.copy_(*this);
  return result;
}

// --- checks
bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  const detail::OpName op_name("allclose");  // Note [The op the user called]
  if (self.device() != kCPU || other.device() != kCPU)
    return allclose(self.to(kCPU), other.to(kCPU), rtol, atol, equal_nan);
  Tensor close = elementwise<bool, double, double>(
      "allclose", {self, other}, [=](double a, double b) {
        if (a != a || b != b) return equal_nan && a != a && b != b;
        if (a == b) return true;
        return std::abs(a - b) <= atol + rtol * std::abs(b);
      });
  const bool* flags = close.data_ptr<bool>();
  for (int64_t k = 0; k < close.numel(); ++k)
    if (!flags[k]) return false;
  return true;
}

bool equal(const Tensor& self, const Tensor& other) {
  const detail::OpName op_name("equal");  // Note [The op the user called]
  if (!(self.sizes() == other.sizes())) return false;
  if (self.device() != kCPU || other.device() != kCPU) return equal(self.to(kCPU), other.to(kCPU));
  const Tensor same = eq(self, other);
  const bool* flags = same.data_ptr<bool>();
  for (int64_t k = 0; k < same.numel(); ++k)
    if (!flags[k]) return false;
  return true;
}

namespace detail {
void check_subtraction(const char* op, Dtype a, Dtype b) {
  if (a == kBool && b == kBool)
    fail(op, "subtraction, the `-` operator, with two bool tensors is not supported. "
             "Use the `^` or `logical_xor()` operator instead.");
  if (a == kBool || b == kBool)
    fail(op, "subtraction, the `-` operator, with a bool tensor is not supported. If you "
             "are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}
}  // namespace detail

// --- C++ scalar semantics for batched code
// A zero divisor raises only where a quotient is computed: with no dividends (a batch of no
// examples, `x[k % x.size(0)]` over an empty x) the loop as written divides nothing.
namespace detail {

Tensor div_trunc(const Tensor& a, const Tensor& b) {
  Dtype dtype = promote("div_trunc", a, b);
  if (dtype == kBool) dtype = kInt64;  // C++ promotes bool operands to int
  if (is_floating(dtype)) return binary("div_trunc", a, b, DivOp{}, dtype);
  return visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    if constexpr (is_int<T>) {
      const Tensor divisor = b.to(dtype);
      if (a.numel() != 0 && has_zero(divisor)) fail("div_trunc", "integer division by zero");
      return elementwise<T, T, T>("div_trunc", {a.to(dtype), divisor}, functors::DivTrunc{});
    } else {
      return Tensor();
    }
  });
}

Tensor remainder_trunc(const Tensor& a, const Tensor& b) {
  Dtype dtype = promote("remainder_trunc", a, b);
  if (dtype == kBool) dtype = kInt64;
  return visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    const Tensor divisor = b.to(dtype);
    if constexpr (!std::is_same_v<T, bool>) {
      if (is_int<T> && a.numel() != 0 && has_zero(divisor))
        fail("remainder_trunc", "integer division by zero");
      return elementwise<T, T, T>("remainder_trunc", {a.to(dtype), divisor},
                                  functors::RemainderTrunc{});
    } else {
      return Tensor();
    }
  });
}

}  // namespace detail
}  // namespace vmap
