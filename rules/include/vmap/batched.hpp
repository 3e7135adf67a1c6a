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
//     vb::Level _b_level0(0, input.size(0));
//     const vb::Value i = _b_level0.index();
//     vb::at(out, i) = vb::at(input, i).index_select(0, vb::at(index, i));  // line 8
//   }
//
// Every member, operator and free function of Tensor in SPEC section 4 exists on Value
// with the same signature, Tensor replaced by Value, and the same per-example meaning;
// each is one op-table lookup and one rule call, never a loop over examples.
#pragma once

#include <vmap/vmap.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace vmap::batched {

class Value;

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
};

class Value {
 public:
  Value();                    // undefined, like a default-constructed Tensor
  Value(const Tensor& unbatched);  // loop-invariant tensor: broadcasts over all levels
  Value(double v);            // loop-invariant C++ scalars (wrapped numbers)
  Value(float v);
  Value(int64_t v);
  Value(int v);
  Value(bool v);

  // Assignment into a place (`vb::at(out, i) = e`, `x[j] = e` on a Value view) writes
  // through the view, masked by the innermost vb::Where (examples outside keep their old
  // value). Assignment to a local rebinds it (merged with `where` under a mask).
  Value& operator=(const Value& other);

  // ... every Tensor member of SPEC section 4 (dim, size, sizes, numel, dtype, ...,
  //     operator[], select, index_select, sum, matmul, copy_, fill_, +=, ...) with Value
  //     for Tensor. `item<T>()` gives a C++-scalar Value of T's dtype.

  // Escape hatches for the rules and the fallback.
  const Tensor& physical() const;
  int64_t levels() const;     // leading level dims in physical()
  bool is_cpp_scalar() const;
};

// x[index] where index is a batched integer (an induction variable or a data-dependent
// scalar). For an induction variable this is a view (narrow along dim 0), so stores
// through it write into x; for other indices it gathers (and stores scatter).
Value at(const Tensor& x, const Value& index);
Value at(const Value& x, const Value& index);
// x.select(dim, index) likewise.
Value select(const Tensor& x, int64_t dim, const Value& index);

// Reductions into a loop-invariant accumulator (`acc += e;`, `acc = maximum(acc, e);`):
// reduce `e` over the levels `acc` does not have, then combine (masked under vb::Where).
enum class Reduce { add, sub, mul, max, min };
void accumulate(Tensor& acc, const Value& e, Reduce op);
void accumulate(Value& acc, const Value& e, Reduce op);
template <class Scalar>  // float / double / int / int64_t / bool accumulators
void accumulate(Scalar& acc, const Value& e, Reduce op);

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

// Fallback for a call with no rule: runs `f` once per example on the per-example slices
// and stacks the results; warns once per call site.
Value per_example(const char* name, const std::function<Tensor(std::vector<Tensor>)>& f,
                  std::vector<Value> args);

// Free functions of SPEC section 4 (add, sum, maximum, where, cat, stack, matmul, ...)
// and the <cmath> functions on C++ scalars (sqrt, exp, log, pow, abs, ...) are declared
// here with Value parameters; the tool qualifies them as `vb::name(...)`.

}  // namespace vmap::batched
