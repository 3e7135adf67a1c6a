// Run-time profile of batched code (beyond SPEC; issue 17), in the spirit of
// torch.profiler's key_averages(): calls and time per op of the batched API.
//
// VMAP_PROFILE=1 in the environment turns it on at start-up and prints table() on stderr
// at exit; enable() does the same from code. Off, each op pays one relaxed atomic load.
//
// Independently of it, an overlap guard of the rewritten code (`if
// (vmap::batched::unsafe_overlap(out, x)) { loop as written } else { batched }`) that finds
// an output sharing memory with an input is counted, and the first one warns on stderr:
// the loop then runs per example, without the speedup.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vmap::profile {

struct OpStats {
  std::string op;        // as the op table spells it: "add", "operator+", "sum"
  std::int64_t calls = 0;
  double seconds = 0;    // wall time, ops called inside it included
};

void enable(bool on = true);
bool enabled();
// Every op called since enable() or reset(), the most time first.
std::vector<OpStats> ops();
// Overlap guards that ran a loop as written (counted whether or not profiling is on).
std::int64_t overlap_fallbacks();
void reset();
// ops() as a table: op, calls, total and average time, share of the total.
std::string table();

namespace detail {
// Times one op while profiling is on (dispatch in batched_value.cpp).
class OpScope {
 public:
  explicit OpScope(std::string_view op);
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  std::string_view op_;
  std::int64_t start_ns_ = -1;
};
// An overlap guard found shared memory: count it, warn the first time.
void note_overlap_fallback();
}  // namespace detail

}  // namespace vmap::profile
