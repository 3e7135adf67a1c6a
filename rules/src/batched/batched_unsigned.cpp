// The forms of per-example unsigned and narrow signed integers (Note [Unsigned per-example
// integers] in batched.hpp): conversions, comparisons, division and remainder as uint64, and
// conversion to floating point, composed of int64 ops.
#include "batched_internal.hpp"

#include <cstdint>
#include <limits>

namespace vmap::batched {

// Note [Unsigned per-example integers] in batched.hpp. Composed of int64 ops that do not
// overflow where C++'s value fits (the quotient of 2^64 - 1 by 1 is held wrapped, as `+`
// wraps), so masks, levels and the integer division's zero check are those of the ops.
Value unsigned_cast(const Value& value, int64_t bits) {
  const Value wide = scalar_cast_to(value, kInt64);
  if (bits == 64) return wide;
  const Value modulus(int64_t{1} << bits);
  const Value rest = wide % modulus;  // C++'s %: the sign of the dividend
  return scalar_cast_to(where(rest < Value(int64_t{0}), rest + modulus, rest), kInt64);
}

Value narrow_signed_cast(const Value& value, int64_t bits) {
  const Value low = unsigned_cast(value, bits);  // in [0, 2^bits)
  const Value half(int64_t{1} << (bits - 1));
  return scalar_cast_to(where(low < half, low, low - Value(int64_t{1} << bits)), kInt32);
}

namespace {

Value zero() { return Value(int64_t{0}); }
Value one() { return Value(int64_t{1}); }

// A uint64 of 2^63 or more, held as int64 n < 0, is 2^63 + m: m = n + 2^63, computed as
// (n + INT64_MAX) + 1 on a negative n only (so that the other examples do not overflow).
Value above_half(const Value& n, const Value& big) {
  const Value negative = where(big, n, Value(int64_t{-1}));
  return scalar_cast_to(
      where(big, negative + Value(std::numeric_limits<int64_t>::max()) + one(), n), kInt64);
}

// C++'s / of uint64 values: the quotient, as int64 bits.
Value unsigned_quotient(const Value& n, const Value& d) {
  const Value big_n = n < zero(), big_d = d < zero();
  // A divisor of 2^63 or more goes into n once or not at all; the others are positive
  // int64 (a zero stays zero and raises as C++'s division does).
  const Value once = scalar_cast_to(logical_not(unsigned_less(n, d)), kInt64);
  const Value divisor = scalar_cast_to(where(big_d, one(), d), kInt64);
  // n = 2^63 + m with 2^63 = (INT64_MAX / d) * d + INT64_MAX % d + 1, so n / d is
  // INT64_MAX / d + m / d, plus one where the two remainders and 1 reach d.
  const Value m = above_half(n, big_n);
  const Value max(std::numeric_limits<int64_t>::max());
  const Value rest = m % divisor;
  const Value carry = scalar_cast_to(rest >= divisor - max % divisor - one(), kInt64);
  const Value quotient = m / divisor + where(big_n, max / divisor + carry, zero());
  return scalar_cast_to(where(big_d, once, quotient), kInt64);
}

}  // namespace

Value unsigned_less(const Value& a, const Value& b) {
  const Value x = scalar_cast_to(a, kInt64), y = scalar_cast_to(b, kInt64);
  // Where exactly one is 2^63 or more (negative as int64), the signed order is reversed.
  return scalar_cast_to((x < y) != ((x < zero()) != (y < zero())), kBool);
}

Value unsigned_less_equal(const Value& a, const Value& b) {
  return logical_not(unsigned_less(b, a));
}

Value unsigned_divide(const Value& a, const Value& b) {
  return unsigned_quotient(scalar_cast_to(a, kInt64), scalar_cast_to(b, kInt64));
}

Value unsigned_remainder(const Value& a, const Value& b) {
  const Value n = scalar_cast_to(a, kInt64), d = scalar_cast_to(b, kInt64);
  return scalar_cast_to(n - unsigned_quotient(n, d) * d, kInt64);  // exact modulo 2^64
}

namespace detail {
Value flip_sign(const Value& value) {
  return scalar_cast_to(
      scalar_cast_to(value, kInt64) + Value(std::numeric_limits<int64_t>::min()), kInt64);
}
}  // namespace detail

// A value of 2^63 or more is halved, its lowest bit kept in the half's (a sticky bit: the
// half rounds as the whole does), converted, and doubled (exact), as compilers convert.
Value unsigned_to_floating(const Value& value, Dtype dtype) {
  const Value n = scalar_cast_to(value, kInt64);
  const Value big = n < zero();
  const Value m = above_half(n, big);
  const Value two(int64_t{2});
  const Value half = Value(int64_t{1} << 62) + m / two;
  const Value sticky = (m % two) * (one() - half % two);
  const Value converted = scalar_cast_to(where(big, half + sticky, n), dtype);
  return scalar_cast_to(where(big, converted * Value(2.0), converted), dtype);
}

}  // namespace vmap::batched
