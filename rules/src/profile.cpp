// The run-time profile of the batched API (vmap/profile.hpp).
#include <vmap/profile.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

namespace vmap::profile {
namespace {

std::atomic<std::int64_t> overlaps{0};
std::mutex stats_mutex;
// Keyed by the op table's names, which live as long as the program. Never destroyed: the
// table is printed at exit, after the statics made since start-up are gone.
std::map<std::string_view, OpStats>& op_stats() {
  static auto* table = new std::map<std::string_view, OpStats>;
  return *table;
}
// Keyed by file and line: source_location's file names live as long as the program, and
// two translation units naming one file share an entry.
using StatementKey = std::pair<std::string_view, int>;
std::map<StatementKey, StatementStats>& statement_stats() {
  static auto* table = new std::map<StatementKey, StatementStats>;
  return *table;
}

// The statement this thread runs (Note [Profiled statements]), and the ops it called.
struct OpenStatement {
  StatementKey key;
  std::int64_t start_ns = -1;  // -1: none
  std::vector<std::string_view> ops;
};
thread_local OpenStatement open_statement;
thread_local int op_depth = 0;  // ops being timed on this thread: nested ones are not listed

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void close_statement(std::int64_t now) {
  OpenStatement& open = open_statement;
  if (open.start_ns < 0) return;
  const double seconds = static_cast<double>(now - open.start_ns) * 1e-9;
  open.start_ns = -1;
  std::lock_guard lock(stats_mutex);
  StatementStats& entry = statement_stats()[open.key];
  if (entry.calls == 0) {
    entry.file = std::string(open.key.first);
    entry.line = open.key.second;
  }
  ++entry.calls;
  entry.seconds += seconds;
  for (std::string_view op : open.ops)
    if (std::find(entry.ops.begin(), entry.ops.end(), op) == entry.ops.end())
      entry.ops.emplace_back(op);
}

template <class Stats>
std::vector<Stats> by_time(const auto& table) {
  std::vector<Stats> result;
  {
    std::lock_guard lock(stats_mutex);
    for (const auto& [key, entry] : table) result.push_back(entry);
  }
  std::stable_sort(result.begin(), result.end(),
                   [](const Stats& a, const Stats& b) { return a.seconds > b.seconds; });
  return result;
}

// The row of one entry: name, calls, total and average time, share of `total`.
std::string row(const std::string& name, std::int64_t calls, double seconds, double total) {
  char line[200];
  std::snprintf(line, sizeof line, "%-28s %10lld %12.3fms %12.3fus %7.1f%%", name.c_str(),
                static_cast<long long>(calls), seconds * 1e3,
                seconds * 1e6 / static_cast<double>(std::max<std::int64_t>(calls, 1)),
                total > 0 ? 100 * seconds / total : 0.0);
  return line;
}

std::string header(const char* first) {
  char line[200];
  std::snprintf(line, sizeof line, "%-28s %10s %14s %14s %8s", first, "Calls", "Total", "Avg",
                "Time %");
  return line;
}

// VMAP_PROFILE=1 (any value but "0" or empty): on from the start, the table at exit.
const bool from_environment = [] {
  const char* value = std::getenv("VMAP_PROFILE");
  if (value == nullptr || *value == '\0' || std::string_view(value) == "0") return false;
  enable(true);
  std::atexit([] { std::fputs(table().c_str(), stderr); });
  return true;
}();

}  // namespace

void enable(bool enable_it) { detail::on.store(enable_it, std::memory_order_relaxed); }

std::vector<OpStats> ops() { return by_time<OpStats>(op_stats()); }

std::vector<StatementStats> statements() {
  return by_time<StatementStats>(statement_stats());
}

std::int64_t overlap_fallbacks() { return overlaps.load(); }

void reset() {
  open_statement.start_ns = -1;
  std::lock_guard lock(stats_mutex);
  op_stats().clear();
  statement_stats().clear();
  overlaps.store(0);
}

std::string table() {
  std::ostringstream out;
  const std::vector<StatementStats> lines = statements();
  double total = 0;
  for (const StatementStats& entry : lines) total += entry.seconds;
  out << "vmap profile (VMAP_PROFILE): time per batched statement, from its start to the next "
         "one's;\na pending value counts where it is computed (its store or reduction)\n"
      << header("Batched statement") << "  Ops\n";
  for (const StatementStats& entry : lines) {
    const std::size_t slash = entry.file.find_last_of('/');
    std::string ops;
    for (const std::string& op : entry.ops) ops += (ops.empty() ? "" : ", ") + op;
    out << row(entry.file.substr(slash == std::string::npos ? 0 : slash + 1) + ":" +
                   std::to_string(entry.line),
               entry.calls, entry.seconds, total)
        << "  " << ops << "\n";
  }
  const std::vector<OpStats> all = ops();
  total = 0;
  for (const OpStats& entry : all) total += entry.seconds;
  out << "\ntime per op of the batched API, nested ops included\n"
      << header("vmap op (batched)") << "\n";
  for (const OpStats& entry : all) out << row(entry.op, entry.calls, entry.seconds, total) << "\n";
  out << "overlap guards that ran a loop as written: " << overlap_fallbacks() << "\n";
  return out.str();
}

namespace detail {

OpScope::OpScope(std::string_view op) : op_(op) {
  if (!enabled()) return;
  start_ns_ = now_ns();
  OpenStatement& open = open_statement;
  if (op_depth++ == 0 && open.start_ns >= 0 &&
      std::find(open.ops.begin(), open.ops.end(), op) == open.ops.end())
    open.ops.push_back(op);
}

OpScope::~OpScope() {
  if (start_ns_ < 0) return;
  --op_depth;
  const double seconds = static_cast<double>(now_ns() - start_ns_) * 1e-9;
  std::lock_guard lock(stats_mutex);
  OpStats& entry = op_stats()[op_];
  if (entry.op.empty()) entry.op = std::string(op_);
  ++entry.calls;
  entry.seconds += seconds;
}

void start_statement(const std::source_location& where) {
  const std::int64_t now = now_ns();
  close_statement(now);
  OpenStatement& open = open_statement;
  open.key = {where.file_name(), static_cast<int>(where.line())};
  open.start_ns = now;
  open.ops.clear();
}

void end_statement() { close_statement(now_ns()); }

void note_overlap_fallback() {
  if (overlaps.fetch_add(1) == 0)
    std::cerr << "vmap: warning: an output of a batched loop shares memory with another "
                 "tensor the loop reaches, or with itself (an expanded view), so the loop "
                 "runs as written, one example at a time (the batched speedup is lost); pass "
                 "tensors that do not overlap. Reported once; "
                 "vmap::profile::overlap_fallbacks() counts them.\n";
}

}  // namespace detail
}  // namespace vmap::profile
