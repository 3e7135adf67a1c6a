// The API that code rewritten by clang-vmap calls. CONTRACT between rules/ (which
// implements it) and transform/ (which emits calls to it). Change both together.
//
// Note [Batched values]
// A `vmap::batched::Value` is one per-example value seen for all examples at once. Its
// physical tensor has, in front, one dimension per vmap level that is active where the
// value was made (outermost level first); each such dim has the level's size, or 1 when
// the value does not vary along that level (it broadcasts). The remaining dims are the
// per-example ("logical") shape. A Value also remembers whether it stands for a C++
// scalar (`float v = x[i].item<float>()`, an induction variable, `std::sqrt(v)`), because
// ATen promotes those as wrapped numbers and C++ arithmetic on them (int / int truncates)
// differs from tensor arithmetic.
//
// Rewritten code looks like this (the user's names kept, the pragma removed):
//
//   { // clang-vmap: batched from line 7
//     namespace vb = vmap::batched;
//     vb::profile_line(); vb::Level _b_level0(0, input.size(0));  // line 7
//     const vb::Value i = _b_level0.index();
//     vb::profile_line(); vb::at(out, i) = vb::at(input, i).index_select(0, vb::at(index, i));  // line 8
//   }
//
// Every member, operator and free function of Tensor in SPEC section 4 exists on Value
// with the same signature, Tensor replaced by Value, and the same per-example meaning;
// each is one op-table lookup and one rule call, never a loop over examples.
//
// Note [Places]
// Assigning to a Value prvalue (`vb::at(out, i) = e`, `v[0] = e`) writes into the elements
// it views, as assigning to a Tensor temporary does; assigning to a named Value rebinds it.
// A Value read through a data-dependent index (`x[idx[i].item<int64_t>()]`) is a gather,
// and remembers where it came from, so a write to it scatters back (one-hot, per example).
// Writes and in-place ops are masked by the innermost live vb::Where; a write of a value
// that differs per example into a place shared by those examples throws vmap::Error.
#pragma once

#include <vmap/profile.hpp>
#include <vmap/vmap.hpp>

#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <source_location>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace vmap::batched {

class Value;

// Note [Unsigned per-example integers]
// The batched integers are int64 (cpp_dtype), and C++'s unsigned ones wrap around. A
// per-example value of an unsigned type narrower than 64 bits is held as its exact value,
// wrapped into [0, 2^bits) by unsigned_cast after every conversion to the type and every
// `+ - *` of it (clang-vmap prints those as scalar_cast<T>). A 64-bit one (size_t) is
// held as its bits: int64's `+ - *`, unary `-`, `==`, `!=`, a conversion to an integer
// type or bool, and its use as an index (which takes an int64_t in the loop as written too)
// compute C++'s bits. Where they read another number than C++'s (`i - 1` at i == 0 is
// 2^64 - 1, not -1), clang-vmap prints the unsigned forms below: `<` `>` `<=` `>=`, `/`, `%`
// of 64-bit unsigned operands and a conversion of one to floating point. They take any
// integer operands, converted to int64 first (C++'s conversion of them to uint64 keeps the
// same bits).
Value unsigned_cast(const Value& value, int64_t bits);
// A conversion to a signed type narrower than int (short) keeps the low `bits` bits, read as
// two's complement, as C++20 converts (`(short)(s * 3)` past 32767 is negative); int32
// Values would keep the whole value.
Value narrow_signed_cast(const Value& value, int64_t bits);
Value unsigned_less(const Value& a, const Value& b);        // a < b as uint64
Value unsigned_less_equal(const Value& a, const Value& b);  // a <= b as uint64
Value unsigned_divide(const Value& a, const Value& b);      // a / b as uint64
Value unsigned_remainder(const Value& a, const Value& b);   // a % b as uint64
// static_cast<T> of a uint64 held as int64: rounded to floating point as C++ rounds it.
Value unsigned_to_floating(const Value& value, Dtype dtype);
template <vmap::detail::Arithmetic T>
  requires std::is_floating_point_v<T>
Value from_unsigned(const Value& value);
namespace detail {
// value + 2^63 (its sign bit flipped): the unsigned order as int64's (accumulate's max, min).
Value flip_sign(const Value& value);
}  // namespace detail

// One `#pragma vmap` loop: iterations start .. end-1 (end <= start: zero trips).
// Constructing it opens the level (pushed on a thread-local stack), destroying it
// closes it; levels nest like the loops they replace.
class Level {
 public:
  Level(int64_t start, int64_t end);
  Level(const Level&) = delete;
  Level& operator=(const Level&) = delete;
  ~Level();
  // The induction variable: int64 C++ scalar, value start + k for example k.
  Value index() const;
  int64_t size() const;

 private:
  int64_t depth_;
};

// Starts a batched statement at the caller's line, which the run-time profile times (Note
// [Profiled statements] in vmap/profile.hpp) and a vmap::Error raised in it names (Note
// [Errors name the statement] in vmap/types.hpp); clang-vmap prints one in front of each.
// Profiling off, it is a store and one branch.
inline void profile_line(std::source_location where = std::source_location::current()) {
  vmap::detail::running_statement = {where.file_name(), where.line()};
  if (profile::enabled()) [[unlikely]]
    profile::detail::start_statement(where);
}

namespace detail {
struct Place;
struct Pending;
// The C++ type a scalar_cast<T> converts to, as a dtype (unsigned types as int64).
template <class T>
constexpr Dtype cpp_dtype() {
  if constexpr (std::is_same_v<T, bool>)
    return kBool;
  else if constexpr (std::is_floating_point_v<T>)
    return sizeof(T) <= 4 ? kFloat32 : kFloat64;
  else
    return sizeof(T) <= 4 && std::is_signed_v<T> ? kInt32 : kInt64;
}
}  // namespace detail

class Value {
  using IntList = vmap::detail::IntList;

 public:
  Value();                         // undefined, like a default-constructed Tensor
  Value(const Tensor& unbatched);  // loop-invariant tensor: broadcasts over all levels
  Value(std::nullopt_t) : Value() {}  // an optional argument left out (clamp's bounds)
  // Loop-invariant C++ scalars (wrapped numbers).
  template <vmap::detail::Arithmetic T>
  Value(T v) : Value(scalar_tensor(held(v), detail::cpp_dtype<T>()), 0, true) {}
  // A physical tensor with `levels` leading level dims (Note [Batched values]).
  Value(Tensor physical, int64_t levels, bool cpp_scalar);

  // A copy is a new variable of the innermost active level (see home_levels()).
  Value(const Value& other);
  Value(Value&& other) noexcept;
  ~Value();
  // Rebinds a named Value (masked by the innermost vb::Where; a C++ scalar keeps its type).
  Value& operator=(const Value& other) &;
  // Writes into the elements a temporary views (Note [Places]).
  Value& operator=(const Value& other) &&;

  // --- the same for every example
  bool defined() const { return physical_.defined() || pending_ != nullptr; }
  int64_t dim() const;
  int64_t size(int64_t dim) const;
  std::vector<int64_t> sizes() const;
  int64_t numel() const;
  Dtype dtype() const;
  Dtype scalar_type() const { return dtype(); }
  Device device() const;
  bool is_contiguous() const;

  // --- conversions and element access
  Value contiguous() const;
  Value clone() const;
  Value to(Dtype dtype) const;
  Value to(Device device) const;
  template <vmap::detail::Arithmetic T>
  Value item() const {
    // An unsigned or short T is held in a wider dtype: its own range is checked, as
    // Tensor::item<T>() checks it ("value cannot be converted to type short").
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                  (std::is_unsigned_v<T> || sizeof(T) < sizeof(int)))
      check_items_fit([](vmap::detail::Scalar item) { (void)item.checked_to<T>("item"); });
    if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>)
      return unsigned_cast(item_as(kInt64), 8 * sizeof(T));
    else
      return item_as(detail::cpp_dtype<T>());
  }
  Value item_as(Dtype dtype) const;
  // Calls `check` on each item of the examples the current mask runs.
  void check_items_fit(void (*check)(vmap::detail::Scalar)) const;

  // --- views and indexing; an index may be a batched C++ scalar (Note [Places])
  Value operator[](const Value& index) const;
  Value select(int64_t dim, const Value& index) const;
  Value narrow(int64_t dim, const Value& start, int64_t length) const;
  Value index_select(int64_t dim, const Value& index) const;
  Value gather(int64_t dim, const Value& index) const;
  Value unsqueeze(int64_t dim) const;
  Value squeeze() const;
  Value squeeze(int64_t dim) const;
  Value expand(IntList sizes) const;
  Value expand_as(const Value& other) const;
  Value reshape(IntList sizes) const;
  Value view(IntList sizes) const;
  Value transpose(int64_t dim0, int64_t dim1) const;
  Value t() const;
  Value permute(IntList dims) const;
  Value flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Value movedim(int64_t source, int64_t destination) const;
  Value movedim(IntList source, IntList destination) const;
  Value triu(int64_t diagonal = 0) const;
  Value tril(int64_t diagonal = 0) const;

  // --- reductions
  Value sum() const;
  Value sum(int64_t dim, bool keepdim = false) const;
  Value sum(IntList dims, bool keepdim = false) const;
  Value mean() const;
  Value mean(int64_t dim, bool keepdim = false) const;
  Value mean(IntList dims, bool keepdim = false) const;
  Value amax(int64_t dim, bool keepdim = false) const;
  Value amax(IntList dims = {}, bool keepdim = false) const;  // {}: every dim
  Value amin(int64_t dim, bool keepdim = false) const;
  Value amin(IntList dims = {}, bool keepdim = false) const;
  Value argmax() const;
  Value argmax(int64_t dim, bool keepdim = false) const;
  Value argmin() const;
  Value argmin(int64_t dim, bool keepdim = false) const;
  Value any() const;
  Value any(int64_t dim, bool keepdim = false) const;
  Value all() const;
  Value all(int64_t dim, bool keepdim = false) const;
  Value softmax(int64_t dim) const;
  Value log_softmax(int64_t dim) const;
  Value cumsum(int64_t dim) const;
  Value cumprod(int64_t dim) const;
  Value logsumexp(IntList dims, bool keepdim = false) const;
  Value var(IntList dims, bool unbiased = true, bool keepdim = false) const;
  Value std(IntList dims, bool unbiased = true, bool keepdim = false) const;
  // x.var(0) is dim 0, as on a Tensor (vmap::detail::DimInteger)
  template <vmap::detail::DimInteger Dim>
  Value var(Dim dim, bool unbiased = true, bool keepdim = false) const {
    return var(IntList(static_cast<int64_t>(dim)), unbiased, keepdim);
  }
  template <vmap::detail::DimInteger Dim>
  Value std(Dim dim, bool unbiased = true, bool keepdim = false) const {
    return std(IntList(static_cast<int64_t>(dim)), unbiased, keepdim);
  }
  Value norm(vmap::detail::Scalar p, IntList dims, bool keepdim = false) const;
  // over the whole example (LibTorch's overloads: x.var() must rewrite to code that compiles)
  Value var(bool unbiased = true) const;
  Value std(bool unbiased = true) const;
  Value norm(vmap::detail::Scalar p = 2) const;
  Value masked_fill(const Value& mask, const Value& value) const;
  Value lerp(const Value& end, const Value& weight) const;
  // sorting: (values, indices), as LibTorch's
  std::tuple<Value, Value> sort(int64_t dim = -1, bool descending = false) const;
  Value argsort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Value, Value> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                bool sorted = true) const;

  // --- linear algebra
  Value matmul(const Value& other) const;
  Value mm(const Value& other) const;
  Value mv(const Value& other) const;
  Value bmm(const Value& other) const;
  Value dot(const Value& other) const;

  // --- pointwise
  // the ops of the pointwise op list (Note [Pointwise op list])
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) Value name() const;
#define VMAP_BINARY_OP(name, Functor, domain) Value name(const Value& other) const;
#include <vmap/detail/pointwise_ops.def>
  Value abs() const;
  Value neg() const;
  Value logical_not() const;
  Value pow(const Value& exponent) const;
  Value clamp(const Value& min, const Value& max = Value()) const;  // undefined: no bound
  // alpha may differ per example (Note [Per-example alpha] in batched_ops.cpp).
  Value add(const Value& other, const Value& alpha = 1) const;
  Value sub(const Value& other, const Value& alpha = 1) const;
  Value mul(const Value& other) const;
  Value div(const Value& other) const;
  // rounding_mode "trunc" / "floor" / std::nullopt (true division), loop-invariant.
  Value div(const Value& other, std::optional<std::string_view> rounding_mode) const;
  Value maximum(const Value& other) const;
  Value minimum(const Value& other) const;
  Value logical_and(const Value& other) const;
  Value logical_or(const Value& other) const;

  // --- in place: write through this Value's elements, masked (Note [Places])
  const Value& copy_(const Value& src) const;
  const Value& fill_(const Value& value) const;
  const Value& zero_() const;
  Value& operator+=(const Value& other);
  Value& operator-=(const Value& other);
  Value& operator*=(const Value& other);
  Value& operator/=(const Value& other);
  Value& operator%=(const Value& other);  // C++ integers only, as operator%

  // Escape hatches for the rules and the fallback.
  // Computes a pending value first (Note [Pending values] in src/batched/batched_fused.hpp).
  const Tensor& physical() const;
  int64_t levels() const { return levels_; }  // leading level dims in physical()
  // Levels active where this variable was made: an accumulator declared in an outer loop
  // body is per outer example even while its physical tensor does not vary yet.
  int64_t home_levels() const { return home_levels_; }
  bool is_cpp_scalar() const { return cpp_scalar_; }
  // physical() with `levels` leading level dims (levels >= this->levels()); a view.
  Tensor aligned(int64_t levels) const;

 private:
  friend struct Access;
  static Tensor scalar_tensor(vmap::detail::Scalar value, Dtype dtype);
  template <class T>
  static auto held(T v) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8)
      return static_cast<int64_t>(v);  // its bits (Note [Unsigned per-example integers])
    else
      return v;
  }

  // Exactly one is set in a defined Value: a pending value (fused pointwise chain, lazy
  // induction index) becomes physical_ when something observes its elements.
  mutable Tensor physical_;
  mutable std::shared_ptr<const detail::Pending> pending_;
  int64_t levels_ = 0;
  bool cpp_scalar_ = false;
  int64_t home_levels_ = 0;
  int64_t induction_level_ = -1;                // the Level::index() of this level
  std::shared_ptr<const detail::Place> place_;  // set when read through a data-dependent index
};

// x[index] where index is a batched integer (an induction variable or a data-dependent
// scalar). For an induction variable this is a view (narrow along dim 0), so stores
// through it write into x; for other indices it gathers (and stores scatter).
Value at(const Tensor& x, const Value& index);
Value at(const Value& x, const Value& index);
// x.select(dim, index) likewise.
Value select(const Tensor& x, int64_t dim, const Value& index);
Value select(const Value& x, int64_t dim, const Value& index);

// C++ conversion of a per-example scalar (`(int)v`, float -> double), as static_cast<T>.
template <vmap::detail::Arithmetic T>
Value scalar_cast(const Value& value);
Value scalar_cast_to(const Value& value, Dtype dtype);
template <vmap::detail::Arithmetic T>
Value scalar_cast(const Value& value) {
  if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>)
    return unsigned_cast(value, 8 * sizeof(T));
  else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) < sizeof(int))
    return narrow_signed_cast(value, 8 * sizeof(T));
  else
    return scalar_cast_to(value, detail::cpp_dtype<T>());
}
template <vmap::detail::Arithmetic T>
  requires std::is_floating_point_v<T>
Value from_unsigned(const Value& value) {
  return unsigned_to_floating(value, detail::cpp_dtype<T>());
}

// `k++` / `k--` whose value is used (`while (k++ < n)`): k steps as `k += 1` does (masked),
// and the value k had before is the result, as in C++. (`++k` is `(k += 1)`.)
Value post_increment(Value& value);
Value post_decrement(Value& value);

// Reductions into a loop-invariant accumulator (`acc += e;`, `acc = maximum(acc, e);`):
// reduce `e` over the levels `acc` does not have, then combine (masked under vb::Where).
// fmax / fmin (std::fmax, std::fmin) fold C++ scalar accumulators only.
enum class Reduce { add, sub, mul, max, min, fmax, fmin };
void accumulate(Tensor& acc, const Value& e, Reduce op);
void accumulate(Value& acc, const Value& e, Reduce op);
// `acc = maximum(acc, e);`, `acc = acc + e;`: rebinds the handle acc to a new tensor, as in
// LibTorch, where a copy of the old handle keeps the old values (`acc += e` writes them).
void accumulate_rebinding(Tensor& acc, const Value& e, Reduce op);
void accumulate_rebinding(Value& acc, const Value& e, Reduce op);
// C++ scalar accumulators fold the examples in loop order with C++ semantics.
void accumulate_scalar(double& acc, Dtype acc_type, const Value& e, Reduce op);
void accumulate_scalar(int64_t& acc, Dtype acc_type, const Value& e, Reduce op);
template <vmap::detail::Arithmetic Scalar>  // float / double / int / int64_t / bool accumulators
void accumulate(Scalar& acc, const Value& e, Reduce op) {
  if constexpr (std::is_floating_point_v<Scalar>) {
    double wide = acc;
    accumulate_scalar(wide, detail::cpp_dtype<Scalar>(), e, op);
    acc = static_cast<Scalar>(wide);
  } else {
    int64_t wide = static_cast<int64_t>(acc);  // `+ - *` in int64 give C++'s bits
    // A size_t compared (max, min) as int64: adding 2^63 (flipping the sign bit) maps the
    // unsigned order onto the signed one (Note [Unsigned per-example integers]).
    if constexpr (std::is_unsigned_v<Scalar> && sizeof(Scalar) == 8) {
      if (op != Reduce::add && op != Reduce::sub && op != Reduce::mul) {
        constexpr int64_t sign = std::numeric_limits<int64_t>::min();
        wide = static_cast<int64_t>(acc ^ static_cast<uint64_t>(sign));
        accumulate_scalar(wide, kInt64, detail::flip_sign(e), op);
        acc = static_cast<Scalar>(wide) ^ static_cast<uint64_t>(sign);
        return;
      }
    }
    accumulate_scalar(wide, detail::cpp_dtype<Scalar>(), e, op);
    acc = static_cast<Scalar>(wide);
  }
}

// A per-example `if`: both branches run batched; stores and local assignments made while
// a Where is alive are masked by its condition (after flip(), by its negation). Data-
// dependent indices read under a mask are clamped for masked-out examples, so no branch
// raises an error the per-example code would not.
class Where {
 public:
  explicit Where(const Value& condition);
  Where(const Where&) = delete;
  Where& operator=(const Where&) = delete;
  ~Where();
  void flip();  // entering the `else`
};

// Note [Control masks]
// Per-example `while`/`do`, `break`/`continue`, early `return` and `switch` run batched
// with execution masks (ISPC's; JAX's batched while_loop): each construct is a frame on
// the mask stack vb::Where uses, so stores, rebinding, reductions and data-dependent
// indices inside it are masked as in an `if`. A jump takes the examples of the current
// mask out of every frame from its target up (the enclosing `if`s see them gone at their
// `else` too); the frames below are untouched, so after the construct those examples run
// on. The batched loop runs until no example is active: at most the largest trip count
// of iterations of the batched body.
//
// A per-example loop:
//   { vb::Loop _b_loop0;
//     while (_b_loop0.next(k < max_iter && zr * zr + zi * zi < 4.0f)) { ... } }
class Loop {
 public:
  // The examples of the current mask enter the loop; `where` names it in the profile.
  explicit Loop(std::source_location where = std::source_location::current());
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;
  ~Loop();
  // The examples still in the loop whose `condition` holds run the next iteration; false
  // when there are none. Without a condition (a plain `for`), false once all have left.
  bool next(const Value& condition);
  bool next();
  void exit();    // `break`: the examples of the current mask leave the loop
  void skip();    // `continue`: they skip the rest of this iteration
  // End of an iteration: the skipped examples test the condition again (clang-vmap prints
  // it at the end of each batched loop body; next() without a condition calls it).
  void resume();

 private:
  std::size_t frame_;
  std::source_location where_;
};

// A `switch` on a per-example integer: the examples whose value matches a label run
// from it on (fallthrough), until a `break` (exit()) takes them out.
class Switch {
 public:
  Switch(const Value& value, std::vector<int64_t> labels);  // labels: every `case` value
  Switch(const Switch&) = delete;
  Switch& operator=(const Switch&) = delete;
  ~Switch();
  void enter(int64_t label);  // `case label:`
  void enter_default();       // `default:`
  void exit();                // `break`

 private:
  std::size_t frame_;
  Value value_;
  std::vector<int64_t> labels_;
};

// Early returns in a batched clone of a function: `return e;` before the end takes the
// examples of the current mask out of the rest of the body with e as their result.
class Returns {
 public:
  Returns();
  Returns(const Returns&) = delete;
  Returns& operator=(const Returns&) = delete;
  ~Returns();
  void exit(const Value& result);  // `return result;`
  void exit();                     // `return;`
  // The final `return last;`: every example's result. A body each of whose paths returns
  // before its end (a `switch`, `while (true)`) ends with result(0 of its type): no
  // example is left to take it, and it is the result where no example ran the body.
  Value result(const Value& last);

 private:
  std::size_t frame_;
  Value result_;
};

// Note [Randomness]
// `#pragma vmap randomness(different)` / `randomness(same)` (functorch's meanings) let the
// random factories into a loop's body. clang-vmap opens a RandomDraws at the top of the
// batched loop and prints each draw as vb::rand(...) etc., in the loop and in the clones of
// the helpers it calls (which therefore see the mode of the loop running them):
// - different: one draw of shape [level sizes..., per-example shape], every example of every
//   active level its own numbers (not the as-written loop's: that runs one shared sequence);
// - same: one draw of the per-example shape, broadcast over the levels (no copy).
// A per-example argument (bernoulli(p_i), rand_like(x[i])) gives the per-example shape and
// dtype; bernoulli compares the uniform draw (per example, or shared for `same`) with each
// example's p.
enum class Randomness { different, same };
class RandomDraws {
 public:
  explicit RandomDraws(Randomness mode);
  RandomDraws(const RandomDraws&) = delete;
  RandomDraws& operator=(const RandomDraws&) = delete;
  ~RandomDraws();
};
Value rand(vmap::detail::IntList sizes, TensorOptions options = {});
Value randn(vmap::detail::IntList sizes, TensorOptions options = {});
Value randint(int64_t high, vmap::detail::IntList sizes, TensorOptions options = kInt64);
Value randint(int64_t low, int64_t high, vmap::detail::IntList sizes,
              TensorOptions options = kInt64);
Value rand_like(const Value& self, TensorOptions options = {});
Value randn_like(const Value& self, TensorOptions options = {});
Value bernoulli(const Value& p);
Value bernoulli(const Value& self, double p);

// A user's batching rule (Note [User batching rules] in vmap/vmap.hpp): clang-vmap
// prints `score(a, b)` as
//   vb::unstacked<R>("score_batched", score_batched(vb::stacked(a'), vb::stacked(b')))
// with R score's return type. stacked: every example's value along one new leading dim
// (the active levels flattened into it; a value that does not vary along a level expanded
// to it, a view). unstacked: the examples' results from dim 0 of `results` (a number's as
// a C++ scalar of type R); throws vmap::Error naming `function` when dim 0 is not the
// batch.
Tensor stacked(const Value& value);
Value unstacked(const char* function, const Tensor& results, std::optional<Dtype> cpp_scalar);
template <class R>
Value unstacked(const char* function, const Tensor& results) {
  if constexpr (std::is_arithmetic_v<R>)
    return unstacked(function, results, detail::cpp_dtype<R>());
  else
    return unstacked(function, results, std::nullopt);
}

// Fallback for a call with no rule: runs `f` once per example on the per-example slices
// and stacks the results; warns once per op name (on stderr).
Value per_example(const char* name, const std::function<Tensor(std::vector<Tensor>)>& f,
                  std::vector<Value> args);

// The rewrite's overlap guards (SPEC section 2, aliasing): true sends the loop down its
// as-written path. Each is also true when out's own elements may overlap (internal_overlap):
// an output or accumulator that is an expanded view is written once per example as written
// (the last write wins), which one batched write cannot do.
//
// True when out and in share memory but are not the same view.
bool unsafe_overlap(const Tensor& out, const Tensor& in);
// True when out and in share memory at all, the same view included: for an input the loop
// reads beyond each example's own slot (`out[i] = in[i] - in.sum(0)` with out and in one
// tensor sees the rows it already replaced), and for two tensors the loop both writes.
bool any_overlap(const Tensor& out, const Tensor& in);
// True when two elements of out may be one memory location (a stride 0 of an expanded
// view, or strides that interleave).
bool internal_overlap(const Tensor& out);
// The same for each tensor of a container the loop reads from (`weights[k]`, `for (const
// Tensor& w : weights)`).
template <class Tensors>
  requires(!std::is_convertible_v<const Tensors&, const Tensor&>)
bool any_overlap(const Tensor& out, const Tensors& ins) {
  for (const Tensor& in : ins)
    if (any_overlap(out, in)) return true;
  return false;
}

// Note [Check mode]
// `clang-vmap --check` wraps each batched loop so that it runs the loop as written first,
// then puts every output and accumulator back as it was and runs the batched loop; the
// batched results are what the program keeps, and each is compared with what the loop as
// written left (SPEC section 7):
//
//   { // clang-vmap --check: the loop as written, then batched from the same state
//     vb::CheckedOutput _b_check0(out);
//     for (int64_t i = 0; i < x.size(0); ++i) out[i] = x[i] * 2;  // as written
//     _b_check0.ran_as_written(out);   // every output's result kept, then
//     _b_check0.put_back(out);         // every one put back (two outputs may share elements)
//     try {
//       ... the batched loop ...
//     } catch (const std::exception &_b_error) {
//       vb::check_threw(_b_error, "model.cpp", 12);
//     }
//     _b_check0.compare(out, {"model.cpp", 12, "out", false, 1});
//   }
//
// Both loops run on the program's own objects, so an input that shares memory with an
// output is read as each loop reads it; putting a tensor back writes its old elements into
// its old storage (every view of it sees them again) and rebinds the variable to it.

// Where a compared value comes from, for the message.
struct CheckSite {
  const char* file;
  int line;  // of the loop
  const char* name;
  bool accumulator;  // else an output the loop writes per example
  // Leading dims of the output indexed by the loop's examples (`out[i][j]`: 2).
  int example_dims;
};

// Throws vmap::Error naming the site, the first differing element (with its example index)
// and both values unless batched and as_written agree: the same dtype and shape, integer and
// bool elements equal, float elements within SPEC section 2's tolerance (1e-4 relative, and
// 1e-6 absolute near zero, as the differential tests compare), NaN equal to NaN.
void check_equal(const Tensor& batched, const Tensor& as_written, const CheckSite& site);
void check_equal(vmap::detail::Scalar batched, vmap::detail::Scalar as_written,
                 const CheckSite& site);
// The batched loop threw what the loop as written, run first, did not: vmap::Error naming the
// loop and the batched loop's message.
[[noreturn]] void check_threw(const std::exception& error, const char* file, int line);

// One output or accumulator of a loop under check (Note [Check mode]): a C++ scalar.
template <class T>
class CheckedOutput {
 public:
  explicit CheckedOutput(const T& value) : before_(value) {}
  // Keeps what the loop as written left.
  void ran_as_written(const T& value) { as_written_ = value; }
  // Puts the value back as it was, after every output's ran_as_written (two outputs may share
  // elements: one put back before the other is kept would change what the other keeps).
  void put_back(T& value) const { value = before_; }
  void compare(const T& batched, const CheckSite& site) const {
    check_equal(vmap::detail::Scalar(batched), vmap::detail::Scalar(as_written_), site);
  }

 private:
  T before_;
  T as_written_{};
};

template <>
class CheckedOutput<Tensor> {
 public:
  explicit CheckedOutput(const Tensor& tensor);
  void ran_as_written(const Tensor& tensor);
  void put_back(Tensor& tensor) const;
  // A variable that cannot be rebound (`const Tensor& out`) was written in place only.
  void put_back(const Tensor& tensor) const;
  void compare(const Tensor& batched, const CheckSite& site) const;

 private:
  Tensor handle_;  // shares the storage the loop started with
  Tensor before_;  // a copy of its elements
  Tensor as_written_;
};

}  // namespace vmap::batched

// The free functions and operators on Values (vb::add, vb::where, vb::sum, ...).
#include <vmap/batched_ops.hpp>

namespace vmap::batched {

// Note [Masked operands]
// C++ evaluates only one arm of `c ? a : b` and the right of `a && b` / `a || b` only where
// the left does not decide: `d != 0 ? n / d : 0`, `k >= 0 && x[k].item<float>() > 0`.
// Where such an operand could raise for an example that skips it (an integer division, a
// data-dependent index, an `.item<T>()`, a call of a function of the user's file),
// clang-vmap passes it as a lambda, run under the mask of the examples that evaluate it (as
// in a vb::Where), so their divisors and indices are made safe and `.item<int>()` checks
// only their items; the results merge as the eager forms do. So it does where the operand
// writes (`n < 12 && k++ < L` steps k of the examples with n < 12 only), and where the
// operand C++ evaluates first writes (it runs after it).
template <std::invocable Then, std::invocable Else>
Value where(const Value& condition, Then&& then, Else&& otherwise) {
  std::optional<Value> taken, other;  // built, not assigned: an assignment is masked
  {
    Where mask(condition);
    taken.emplace(std::forward<Then>(then)());
    mask.flip();
    other.emplace(std::forward<Else>(otherwise)());
  }
  return where(condition, *taken, *other);
}
template <std::invocable Rhs>
Value logical_and(const Value& lhs, Rhs&& rhs) {
  std::optional<Value> right;
  {
    Where mask(lhs);
    right.emplace(std::forward<Rhs>(rhs)());
  }
  return logical_and(lhs, *right);
}
template <std::invocable Rhs>
Value logical_or(const Value& lhs, Rhs&& rhs) {
  std::optional<Value> right;
  {
    Where mask(lhs);
    mask.flip();
    right.emplace(std::forward<Rhs>(rhs)());
  }
  return logical_or(lhs, *right);
}

// A compiled kernel's lambda as text, which it runs as on a device (Note [Scalar kernels on a
// device] in fused_scalar.hpp, Note [Fused kernels on a device] in fused.hpp).
// `alias` is the name the file gives vmap::batched (the tool's, where the user has a `vb`).
struct DeviceCode {
  const char* lambda = nullptr;
  const char* alias = "vb";
};

}  // namespace vmap::batched

// Compiled fused kernels (Note [Compiled fusion]).
#include <vmap/fused.hpp>
// Per-example scalar code compiled whole (Note [Scalar kernels]).
#include <vmap/fused_scalar.hpp>
