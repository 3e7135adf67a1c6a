// The run-time profile of the batched API (vmap/profile.hpp).
#include <vmap/profile.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

namespace vmap::profile {
namespace {

std::atomic<bool> on{false};
std::atomic<std::int64_t> overlaps{0};
std::mutex stats_mutex;
// Keyed by the op table's names, which live as long as the program. Never destroyed: the
// table is printed at exit, after the statics made since start-up are gone.
std::map<std::string_view, OpStats>& stats() {
  static auto* table = new std::map<std::string_view, OpStats>;
  return *table;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
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

void enable(bool enable_it) { on.store(enable_it, std::memory_order_relaxed); }
bool enabled() { return on.load(std::memory_order_relaxed); }

std::vector<OpStats> ops() {
  std::vector<OpStats> result;
  {
    std::lock_guard lock(stats_mutex);
    for (const auto& [name, entry] : stats()) result.push_back(entry);
  }
  std::stable_sort(result.begin(), result.end(),
                   [](const OpStats& a, const OpStats& b) { return a.seconds > b.seconds; });
  return result;
}

std::int64_t overlap_fallbacks() { return overlaps.load(); }

void reset() {
  std::lock_guard lock(stats_mutex);
  stats().clear();
  overlaps.store(0);
}

std::string table() {
  const std::vector<OpStats> all = ops();
  double total = 0;
  for (const OpStats& entry : all) total += entry.seconds;
  std::ostringstream out;
  char line[160];
  std::snprintf(line, sizeof line, "%-24s %10s %14s %14s %8s\n", "vmap op (batched)", "Calls",
                "Total", "Avg", "Time %");
  out << "vmap profile (VMAP_PROFILE): time per op of the batched API, nested ops included\n"
      << line;
  for (const OpStats& entry : all) {
    std::snprintf(line, sizeof line, "%-24s %10lld %12.3fms %12.3fus %7.1f%%\n",
                  entry.op.c_str(), static_cast<long long>(entry.calls), entry.seconds * 1e3,
                  entry.seconds * 1e6 / static_cast<double>(std::max<std::int64_t>(entry.calls, 1)),
                  total > 0 ? 100 * entry.seconds / total : 0.0);
    out << line;
  }
  out << "overlap guards that ran a loop as written: " << overlap_fallbacks() << "\n";
  return out.str();
}

namespace detail {

OpScope::OpScope(std::string_view op) : op_(op) {
  if (enabled()) start_ns_ = now_ns();
}

OpScope::~OpScope() {
  if (start_ns_ < 0) return;
  const double seconds = static_cast<double>(now_ns() - start_ns_) * 1e-9;
  std::lock_guard lock(stats_mutex);
  OpStats& entry = stats()[op_];
  if (entry.op.empty()) entry.op = std::string(op_);
  ++entry.calls;
  entry.seconds += seconds;
}

void note_overlap_fallback() {
  if (overlaps.fetch_add(1) == 0)
    std::cerr << "vmap: warning: an output of a batched loop shares memory with one of its "
                 "inputs, so the loop runs as written, one example at a time (the batched "
                 "speedup is lost); pass tensors that do not overlap. Reported once; "
                 "vmap::profile::overlap_fallbacks() counts them.\n";
}

}  // namespace detail
}  // namespace vmap::profile
