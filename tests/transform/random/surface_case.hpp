// The Case class of vmap_generate_program --surface (surface.cpp): one generated function
// holding a `#pragma vmap` loop, its helpers and its runner. Its fragment generators, one form
// of the SPEC surface each, are in surface_fragments.cpp; the case's assembly (the loop, the
// function around it, the runner and its aliasing arguments) in surface.cpp.
#pragma once

#include "surface.hpp"

#include <random>
#include <set>
#include <string>
#include <vector>

namespace vmap_generator::surface_detail {

// The forms of KNOWN.md's open defects, which --avoid-known leaves out (surface.cpp).
const std::set<std::string>& known_forms();

inline constexpr int width = 5;   // the per-example row: x[i] is [width]
inline constexpr int planes = 4;  // x3[i] is [planes, width]

inline constexpr const char* parameters =
    "const Tensor& x, const Tensor& y, const Tensor& d, const Tensor& n, const Tensor& k,\n"
    "    const Tensor& idx, const Tensor& x3, const Tensor& w, const Tensor& m, Tensor& out,\n"
    "    Tensor& out2, Tensor& od, Tensor& o3, Tensor& ints, Tensor& longs, Tensor& counts,\n"
    "    Tensor& flags, Tensor& acc, Tensor& peak, float& sf, double& sd, int64_t& si";

class Case {
 public:
  Case(uint32_t seed, int id, bool avoid_known)
      : random_(engine(seed, id)),
        seed_(seed),
        id_(id),
        avoid_known_(avoid_known) {
    generate();
  }

  const std::string& definitions() const { return definitions_; }
  const std::string& runner() const { return runner_; }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random_); }
  bool chance(int percent) { return pick(1, 100) <= percent; }
  std::string one_of(const std::vector<std::string>& items) {
    return items[static_cast<size_t>(pick(0, static_cast<int>(items.size()) - 1))];
  }
  std::string column() { return std::to_string(pick(0, width - 1)); }
  std::string suffix() const { return "_c" + std::to_string(id_); }

  // Whether form `name` may be used here; a used form is listed in the case's comment.
  bool use(const std::string& name) {
    if (avoid_known_ && known_forms().count(name)) return false;
    forms_.insert(name);
    return true;
  }
  // Each accumulator takes one kind of reduction in a loop.
  bool claim(const std::string& accumulator) { return claimed_.insert(accumulator).second; }

  // A per-example scalar of C++ type F read with .item<F>().
  std::string item(const std::string& tensor) { return tensor + ".item<" + scalar_ + ">()"; }
  std::string count() { return "n[i][" + column() + "].item<int64_t>()"; }  // -2 .. 6

  // The fragment generators (surface_fragments.cpp): each returns loop-body text of one form
  // of the surface, and may add helpers (helpers_text_) or declarations before the loop
  // (prologue_).
  // A per-example float [width] tensor expression.
  std::string value();
  std::string increments();
  std::string integer_arithmetic();
  std::string unsigned_scalars();
  std::string control();
  std::string helper_call();
  std::string extremes();
  std::string reduction();
  std::string nested();
  std::string sub_index();
  std::string dtypes();
  std::string items();
  std::string inner_loop();
  std::string aliases();
  std::string members();
  std::string preprocessor();

  // A block of C++ scalars alone, the body a compiled scalar kernel should take (issue 26):
  // `.item<T>()` reads at computed indices, per-example if/while/switch over integers, `q++`
  // in conditions, same-file helpers taking and returning scalars, float64, size_t and
  // unsigned arithmetic (wrapping), reductions written as assignments, and plain inner loops
  // that read and write single elements. Integers stay small (no signed overflow) and every
  // index is reduced into [0, width); unsigned values wrap, which C++ defines. Unbraced, its
  // statements are the loop body's own (a braced block keeps a body from being one kernel).
  // Values the batched code must keep as C++ does, and errors it must raise only where C++
  // runs the code (hunt of issue 31, seventeenth session): an `.item<T>()` kept across a
  // write of its element (a swap), index ops and integer remainders in a branch or `?:` arm
  // that skips the examples whose index or divisor would raise, a number stored into an int
  // tensor (checked as fill_), a slot's handle rebound for some examples then read.
  std::string kept_values();
  // An op's number argument that differs per example (an exponent, an alpha, a bound, a
  // fill value, where's numbers) and a store at a per-example negative index (fifth hunt).
  std::string scalar_arguments();
  std::string kernel_block(bool braced);
  std::string kernel_statement(const std::string& jj);
  std::string fragment();

  // C++ scalar meaning the batched integers must keep (hunt of issue 31): a short wraps
  // past 32767, a division guarded by `?:` or `&&` must not run for a zero divisor, bool
  // arithmetic, a float + double sum computed in double, `/` and `%` by negative divisors,
  // an unsigned read as the signed type of its width, overloaded helpers.
  std::string scalar_meaning();

  // What the loop reaches under another name (issue 31): a global tensor or C++ scalar that a
  // same-file helper reads, and the object's member, which the caller may bind to the loop's
  // own accumulator (the run-time guard runs the loop as written then); a helper that reads
  // the global the loop itself reduces into (refused: left as written).
  std::string reached_elsewhere();
  // The case's assembly (surface.cpp): its loop, its function, its runner.
  std::string loop_header();

  enum class Context { function, member, lambda, function_template };

  void generate();

  // Outputs, the call (with the caller's aliasing), the dumps; one block per instantiation.
  std::string call_block(const std::string& callee);

  void write_runner();

  std::mt19937 random_;
  uint32_t seed_;
  int id_;
  bool avoid_known_;
  Context context_ = Context::function;
  std::string scalar_ = "float";  // the C++ type of per-example float scalars
  int batch_ = 5;
  bool rebinds_ = false;  // the loop rebinds acc or peak (`acc = acc + e`)
  bool uses_global_ = false;
  enum { reach_tensor = 1, reach_scalar = 2, reach_member = 4 };
  int reach_ = 0;  // reached_elsewhere's globals and member reads
  bool unsigned_ = false;  // the kernel block being written declares size_t u, unsigned v
  int helpers_ = 0;
  int lambdas_ = 0;
  std::string prologue_;  // declarations before the loop (the lambdas it calls)
  std::set<std::string> forms_;
  std::set<std::string> claimed_;
  std::string helpers_text_;
  std::string definitions_;
  std::string runner_;
};

}  // namespace vmap_generator::surface_detail
