// The run-time profile of the batched API (vmap/profile.hpp).
#include <vmap/profile.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
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
  std::int64_t op_ns = 0;      // time in the ops it called (not nested in one another)
  std::vector<std::string_view> ops;
};
thread_local OpenStatement open_statement;
thread_local detail::OpScope* innermost_op = nullptr;  // nested ones are not listed

// One slice of the Chrome trace: a statement's run (`line` > 0) or an op call.
struct TraceEvent {
  std::string_view name;  // the file of a statement, the op's name
  int line = 0;
  std::int64_t start_ns = 0, total_ns = 0, self_ns = 0;
  int thread = 0;
};
std::atomic<bool> tracing{false};
std::atomic<int> threads_seen{0};
thread_local const int trace_thread = threads_seen.fetch_add(1);
bool trace_truncated = false;  // guarded by stats_mutex, as the events
std::vector<TraceEvent>& trace_events() {
  static auto* events = new std::vector<TraceEvent>;
  return *events;
}
// Under stats_mutex.
void add_trace_event(const TraceEvent& event) {
  if (!tracing.load(std::memory_order_relaxed)) return;
  if (trace_events().size() < kTraceEvents)
    trace_events().push_back(event);
  else
    trace_truncated = true;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void close_statement(std::int64_t now) {
  OpenStatement& open = open_statement;
  if (open.start_ns < 0) return;
  const std::int64_t total_ns = now - open.start_ns;
  const std::int64_t self_ns = std::max<std::int64_t>(0, total_ns - open.op_ns);
  std::lock_guard lock(stats_mutex);
  add_trace_event({open.key.first, open.key.second, open.start_ns, total_ns, self_ns,
                   trace_thread});
  open.start_ns = -1;
  StatementStats& entry = statement_stats()[open.key];
  if (entry.calls == 0) {
    entry.file = std::string(open.key.first);
    entry.line = open.key.second;
  }
  ++entry.calls;
  entry.seconds += static_cast<double>(total_ns) * 1e-9;
  entry.self_seconds += static_cast<double>(self_ns) * 1e-9;
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

// The row of one entry: name, calls, total, self and average time, share of `total`.
std::string row(const std::string& name, std::int64_t calls, double seconds, double self,
                double total) {
  char line[240];
  std::snprintf(line, sizeof line, "%-28s %10lld %12.3fms %12.3fms %12.3fus %7.1f%%",
                name.c_str(), static_cast<long long>(calls), seconds * 1e3, self * 1e3,
                seconds * 1e6 / static_cast<double>(std::max<std::int64_t>(calls, 1)),
                total > 0 ? 100 * seconds / total : 0.0);
  return line;
}

std::string header(const char* first) {
  char line[200];
  std::snprintf(line, sizeof line, "%-28s %10s %14s %14s %14s %8s", first, "Calls", "Total",
                "Self", "Avg", "Time %");
  return line;
}

// `text` as a JSON string.
std::string json_string(std::string_view text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      quoted += escaped;
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

std::string trace_path;  // VMAP_PROFILE=<file>.json

// VMAP_PROFILE=1 (any value but "0" or empty): on from the start, the table at exit.
// VMAP_PROFILE=<file>.json: the same, and the Chrome trace written to <file>.json.
const bool from_environment = [] {
  const char* value = std::getenv("VMAP_PROFILE");
  if (value == nullptr || *value == '\0' || std::string_view(value) == "0") return false;
  enable(true);
  if (std::string_view(value).ends_with(".json")) {
    trace_path = value;
    record_trace(true);
  }
  std::atexit([] {
    std::fputs(table().c_str(), stderr);
    if (trace_path.empty()) return;
    if (std::FILE* file = std::fopen(trace_path.c_str(), "w")) {
      const std::string json = trace_json();
      const bool written = std::fwrite(json.data(), 1, json.size(), file) == json.size();
      if (std::fclose(file) == 0 && written) {
        std::fprintf(stderr, "vmap profile: Chrome trace written to %s (open it in Perfetto)\n",
                     trace_path.c_str());
        return;
      }
    }
    std::fprintf(stderr, "vmap profile: could not write the trace to %s\n", trace_path.c_str());
  });
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
  tracing.store(false);
  trace_events().clear();
  trace_truncated = false;
}

void record_trace(bool on) { tracing.store(on); }

std::string trace_json() {
  std::lock_guard lock(stats_mutex);
  std::int64_t origin = 0;  // the first slice starts at 0 us
  if (!trace_events().empty())
    origin = std::min_element(trace_events().begin(), trace_events().end(),
                              [](const TraceEvent& a, const TraceEvent& b) {
                                return a.start_ns < b.start_ns;
                              })->start_ns;
  std::ostringstream out;
  out << "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"truncated\": "
      << (trace_truncated ? "true" : "false") << "},\n\"traceEvents\": [";
  out.precision(3);
  out << std::fixed;
  bool first = true;
  for (const TraceEvent& event : trace_events()) {
    const bool statement = event.line > 0;
    const std::string name =
        statement ? std::string(event.name) + ":" + std::to_string(event.line)
                  : std::string(event.name);
    out << (first ? "\n" : ",\n") << "{\"name\": " << json_string(name) << ", \"cat\": \""
        << (statement ? "statement" : "op") << "\", \"ph\": \"X\", \"pid\": 1, \"tid\": "
        << event.thread << ", \"ts\": " << static_cast<double>(event.start_ns - origin) * 1e-3
        << ", \"dur\": " << static_cast<double>(event.total_ns) * 1e-3
        << ", \"args\": {\"total_us\": " << static_cast<double>(event.total_ns) * 1e-3
        << ", \"self_us\": " << static_cast<double>(event.self_ns) * 1e-3 << "}}";
    first = false;
  }
  out << "\n]}\n";
  return out.str();
}

std::string table() {
  std::ostringstream out;
  const std::vector<StatementStats> lines = statements();
  double total = 0;
  for (const StatementStats& entry : lines) total += entry.seconds;
  out << "vmap profile (VMAP_PROFILE): time per batched statement, from its start to the next "
         "one's;\na pending value counts where it is computed (its store or reduction)\n"
      << header("Batched statement") << "  Ops\n";
  // A file's name alone where no other file of the profile has it, else its full path.
  std::map<std::string, std::set<std::string>> paths_of_name;
  auto base_name = [](const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    return path.substr(slash == std::string::npos ? 0 : slash + 1);
  };
  for (const StatementStats& entry : lines) paths_of_name[base_name(entry.file)].insert(entry.file);
  for (const StatementStats& entry : lines) {
    const std::string name = base_name(entry.file);
    std::string ops;
    for (const std::string& op : entry.ops) ops += (ops.empty() ? "" : ", ") + op;
    out << row((paths_of_name[name].size() == 1 ? name : entry.file) + ":" +
                   std::to_string(entry.line),
               entry.calls, entry.seconds, entry.self_seconds, total)
        << "  " << ops << "\n";
  }
  const std::vector<OpStats> all = ops();
  total = 0;
  for (const OpStats& entry : all) total += entry.seconds;
  out << "\ntime per op of the batched API, nested ops included\n"
      << header("vmap op (batched)") << "\n";
  for (const OpStats& entry : all)
    out << row(entry.op, entry.calls, entry.seconds, entry.self_seconds, total) << "\n";
  out << "overlap guards that ran a loop as written: " << overlap_fallbacks() << "\n";
  return out.str();
}

namespace detail {

OpScope::OpScope(std::string_view op) : op_(op) {
  if (!enabled()) return;
  start_ns_ = now_ns();
  outer_ = innermost_op;
  innermost_op = this;
  OpenStatement& open = open_statement;
  if (!outer_ && open.start_ns >= 0 &&
      std::find(open.ops.begin(), open.ops.end(), op) == open.ops.end())
    open.ops.push_back(op);
}

OpScope::~OpScope() {
  if (start_ns_ < 0) return;
  innermost_op = outer_;
  const std::int64_t total_ns = now_ns() - start_ns_;
  const std::int64_t self_ns = std::max<std::int64_t>(0, total_ns - inner_ns_);
  if (outer_)
    outer_->inner_ns_ += total_ns;
  else if (open_statement.start_ns >= 0)
    open_statement.op_ns += total_ns;
  std::lock_guard lock(stats_mutex);
  add_trace_event({op_, 0, start_ns_, total_ns, self_ns, trace_thread});
  OpStats& entry = op_stats()[op_];
  if (entry.op.empty()) entry.op = std::string(op_);
  ++entry.calls;
  entry.seconds += static_cast<double>(total_ns) * 1e-9;
  entry.self_seconds += static_cast<double>(self_ns) * 1e-9;
}

void start_statement(const std::source_location& where) {
  const std::int64_t now = now_ns();
  close_statement(now);
  OpenStatement& open = open_statement;
  open.key = {where.file_name(), static_cast<int>(where.line())};
  open.start_ns = now;
  open.op_ns = 0;
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
