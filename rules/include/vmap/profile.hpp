// Run-time profile of batched code (beyond SPEC; issue 17), in the spirit of
// torch.profiler's key_averages(): calls and time per batched statement, named by the
// user's file and line, and per op of the batched API.
//
// VMAP_PROFILE=1 in the environment turns it on at start-up and prints table() on stderr
// at exit; enable() does the same from code. VMAP_PROFILE=<file>.json also writes a Chrome
// trace there at exit (trace_json(): Perfetto and chrome://tracing open it), each run of a
// statement and each op a slice with its total and self time, statements named by full
// path and line. Off, each op and each statement pays one relaxed atomic load and a branch.
//
// Note [Profiled statements]
// clang-vmap starts every batched statement with `vb::profile_line();`, whose default
// argument std::source_location::current() is the user's file and line: the rewrite's
// `#line` directives name them. A statement runs from its profile_line() to the next one,
// or to the end of its vmap loop (~Level); its time is that wall time, whatever runs in it:
// ops of the batched API, compiled fused kernels (vb::fused), per-example fallbacks.
// Work counts where it runs, not where it was written: a pending value (Note [Pending
// values] in rules/src/batched_fused.hpp) is computed where it is consumed, so a chain of
// pointwise statements shows its time at the store or reduction that computes it; and a
// batched `while` loop's condition counts toward the loop's line (Loop::resume, at the end
// of each iteration, starts it again). The statements of a batched clone of a called
// function are not marked: the call counts toward the statement that makes it. The same
// mark names the statement in error messages (Note [Errors name the statement] in
// vmap/types.hpp).
//
// Independently of it, an overlap guard of the rewritten code (`if
// (vmap::batched::unsafe_overlap(out, x)) { loop as written } else { batched }`) that finds
// an output sharing memory with an input is counted, and the first one warns on stderr:
// the loop then runs per example, without the speedup.
#pragma once

#include <atomic>
#include <cstdint>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

namespace vmap::profile {

struct OpStats {
  std::string op;        // as the op table spells it: "add", "operator+", "sum"; "fused"
  std::int64_t calls = 0;
  double seconds = 0;       // wall time, ops called inside it included
  double self_seconds = 0;  // the same without the ops called inside it
};

// One batched statement of rewritten code (Note [Profiled statements]).
struct StatementStats {
  std::string file;  // the user's source file, as the rewrite's #line directives name it
  int line = 0;
  std::vector<std::string> ops;  // the ops it ran, first-run order ("fused": a fused kernel)
  std::int64_t calls = 0;        // times it ran: once per batched run, not per example
  double seconds = 0;            // wall time from its start to the next statement's
  double self_seconds = 0;       // the same outside the ops it called (the glue)
};

namespace detail {
inline std::atomic<bool> on{false};
}  // namespace detail

void enable(bool on = true);
inline bool enabled() { return detail::on.load(std::memory_order_relaxed); }
// Every op called since enable() or reset(), the most time first.
std::vector<OpStats> ops();
// Every batched statement run since enable() or reset(), the most time first.
std::vector<StatementStats> statements();
// Overlap guards that ran a loop as written (counted whether or not profiling is on).
std::int64_t overlap_fallbacks();
void reset();
// statements() and ops() as tables: calls, total, self and average time, share of the total.
std::string table();
// Records each statement run and op call from now on as a trace slice (until reset()).
void record_trace(bool on = true);
// The recorded slices as a Chrome trace (JSON Trace Event Format): "X" events, `args`
// holding total_us and self_us; at most kTraceEvents, then "truncated" in the metadata.
std::string trace_json();
inline constexpr std::size_t kTraceEvents = 1 << 20;

namespace detail {
// Times one op while profiling is on (dispatch in batched_value.cpp; fused.hpp's kernels).
class OpScope {
 public:
  explicit OpScope(std::string_view op);
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  std::string_view op_;
  std::int64_t start_ns_ = -1;
  std::int64_t inner_ns_ = 0;  // time of the ops called inside this one
  OpScope* outer_ = nullptr;   // the op this one runs inside, on this thread
};
// The statement at `where` starts, ending this thread's previous one (profiling on only).
void start_statement(const std::source_location& where);
// This thread's statement ends: its vmap loop closes.
void end_statement();
// An overlap guard found shared memory: count it, warn the first time.
void note_overlap_fallback();
}  // namespace detail

}  // namespace vmap::profile
