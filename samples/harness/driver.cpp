// main() of every sample executable. The as-written build and the rewritten build of a
// sample run one after the other:
//   <sample>_per_example --save F    times the per-example loop, saves outputs and time
//   <sample>_batched --compare F     checks its outputs against F, times itself, and
//                                    prints the table row (exit 1 when they disagree)
// Without --compare it prints the per-example time alone. --record F appends each case's
// name, time (seconds, whole problem), max error, examples run and examples to F, tab
// separated: scripts/demo.sh joins the records of all builds into its table.
// --device cuda puts every case's inputs and outputs on the GPU (sample::device()); saved
// and compared outputs are brought to the CPU, so a device run compares against a CPU
// reference. Without a usable device it says why and exits 77 (CTest's SKIP_RETURN_CODE).
// --check-only compares without timing (the emulated device of the tests is slow).
//
// The same driver also runs the samples built against LibTorch (torch_shim/): the loop as
// written there saves, the hand-batched LibTorch code (torch_batched/) compares.
//
// Note [Timing a prefix]
// Per-example loops over a whole seed problem take seconds to minutes. The per-example
// build runs the first `count` examples that fit a time budget and scales the time by
// examples / count (each example costs the same); the row says "[count/examples]". The
// batched build runs the same prefix to check agreement, then times the whole problem.
#include "sample.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace {

using vmap::Tensor;

struct Measurement {
  int64_t examples = 0;
  int64_t count = 0;      // examples actually run
  double seconds = 0;     // scaled to the whole problem
  Tensor output;          // of the first `count` examples
};

// The exit status of a run asked for a device it cannot use (CTest's SKIP_RETURN_CODE).
constexpr int kSkipped = 77;

// Floats must agree within 1e-4 relative (SPEC 1); integers and bools exactly.
constexpr double kTolerance = 1e-4;

// Saved files name dtypes by their position here: the same in every build (a LibTorch dtype
// is not our enum).
const vmap::Dtype kDtypes[] = {vmap::kFloat32, vmap::kFloat64, vmap::kInt32, vmap::kInt64,
                               vmap::kBool};

int dtype_code(const Tensor& t) {
  const auto found = std::find(std::begin(kDtypes), std::end(kDtypes), t.scalar_type());
  return static_cast<int>(found - std::begin(kDtypes));
}

std::string format_seconds(double s) {
  char text[32];
  if (s >= 1) std::snprintf(text, sizeof text, "%.2f s", s);
  else if (s >= 1e-3) std::snprintf(text, sizeof text, "%.2f ms", s * 1e3);
  else if (s >= 1e-6) std::snprintf(text, sizeof text, "%.1f us", s * 1e6);
  else std::snprintf(text, sizeof text, "%.0f ns", s * 1e9);
  return text;
}

void save(std::ostream& out, const std::string& name, const Measurement& m) {
  const Tensor values = m.output.to(vmap::kCPU).to(vmap::kFloat64).contiguous();
  out << name << '\n'
      << m.examples << ' ' << m.count << ' ' << m.seconds << ' '
      << dtype_code(m.output) << ' ' << m.output.dim();
  for (int64_t d = 0; d < m.output.dim(); ++d) out << ' ' << m.output.size(d);
  out << '\n';
  const double* data = values.data_ptr<double>();
  for (int64_t k = 0; k < values.numel(); ++k) out << data[k] << ' ';
  out << '\n';
}

std::map<std::string, Measurement> load(std::istream& in) {
  std::map<std::string, Measurement> measurements;
  std::string name;
  while (std::getline(in, name) && !name.empty()) {
    Measurement m;
    int dtype = 0;
    int64_t dim = 0;
    in >> m.examples >> m.count >> m.seconds >> dtype >> dim;
    if (!in || dtype < 0 || dtype >= static_cast<int>(std::size(kDtypes))) break;
    std::vector<int64_t> sizes(dim);
    for (auto& size : sizes) in >> size;
    m.output = vmap::empty(sizes, vmap::kFloat64);
    double* data = m.output.data_ptr<double>();
    for (int64_t k = 0; k < m.output.numel(); ++k) in >> data[k];
    if (!in) break;
    m.output = m.output.to(kDtypes[dtype]);
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    measurements[name] = m;
  }
  return measurements;
}

// Largest |a - b| / max(|b|, 1); infinity when shapes or dtypes differ.
double max_error(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype() || actual.sizes() != expected.sizes())
    return std::numeric_limits<double>::infinity();
  const Tensor a = actual.to(vmap::kCPU).to(vmap::kFloat64).contiguous();
  const Tensor b = expected.to(vmap::kFloat64).contiguous();
  const double* pa = a.data_ptr<double>();
  const double* pb = b.data_ptr<double>();
  double error = 0;
  for (int64_t k = 0; k < a.numel(); ++k) {
    const double difference = std::abs(pa[k] - pb[k]);
    if (std::isnan(difference)) return std::numeric_limits<double>::infinity();
    error = std::max(error, difference / std::max(std::abs(pb[k]), 1.0));
  }
  return error;
}

bool is_floating(const Tensor& t) {
  return t.scalar_type() == vmap::kFloat32 || t.scalar_type() == vmap::kFloat64;
}

Measurement measure_per_example(const sample::Case& c, double budget_s) {
  Measurement m;
  m.examples = c.examples;
  m.count = sample::examples_within(c, budget_s);
  const double seconds = sample::seconds_of([&] { m.output = c.run(m.count); });
  m.seconds = seconds * static_cast<double>(c.examples) / static_cast<double>(m.count);
  return m;
}

// The table row; without a batched measurement (the per-example build alone) its
// columns stay empty.
void print_row(const std::string& name, const Measurement& reference,
               std::optional<double> batched_s, double error) {
  std::string per_example = format_seconds(reference.seconds);
  if (reference.count < reference.examples)
    per_example += " [" + std::to_string(reference.count) + "/" +
                   std::to_string(reference.examples) + "]";
  std::string batched = "-", speedup = "-", error_text = "-";
  if (batched_s) {
    char text[32];
    batched = format_seconds(*batched_s);
    std::snprintf(text, sizeof text, "%.0fx", reference.seconds / *batched_s);
    speedup = text;
    std::snprintf(text, sizeof text, "%.1e", error);
    error_text = text;
  }
  std::printf("| %-44s | %28s | %10s | %9s | %9s |\n", name.c_str(), per_example.c_str(),
              batched.c_str(), speedup.c_str(), error_text.c_str());
  std::fflush(stdout);
}

void record(std::ostream& out, const std::string& name, const Measurement& m, double error) {
  out << name << '\t' << m.seconds << '\t' << error << '\t' << m.count << '\t' << m.examples
      << '\n';
}

int usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [--save FILE | --compare FILE [--check-only]] [--record FILE]\n"
               "          [--budget SECONDS] [--device cpu|cuda]\n",
               program);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string save_path;
  std::string compare_path;
  std::string record_path;
  double budget_s = 0.5;
  std::string_view device_name = "cpu";
  bool check_only = false;
  for (int k = 1; k < argc; ++k) {
    const std::string_view flag = argv[k];
    if (flag == "--check-only") {
      check_only = true;
      continue;
    }
    if (k + 1 == argc) return usage(argv[0]);
    if (flag == "--save") save_path = argv[++k];
    else if (flag == "--compare") compare_path = argv[++k];
    else if (flag == "--record") record_path = argv[++k];
    else if (flag == "--budget") budget_s = std::atof(argv[++k]);
    else if (flag == "--device") device_name = argv[++k];
    else return usage(argv[0]);
  }
  if (device_name != "cpu" && device_name != "cuda") return usage(argv[0]);
  if (check_only && compare_path.empty()) return usage(argv[0]);
  const vmap::Device device =
      device_name == "cuda" ? vmap::Device(vmap::kCUDA) : vmap::Device(vmap::kCPU);
  if (const std::string why = sample::device_unusable(device); !why.empty()) {
    std::fprintf(stderr, "skipped: --device cuda: %s\n", why.c_str());
    return kSkipped;
  }
  sample::set_device(device);

  std::map<std::string, Measurement> references;
  if (!compare_path.empty()) {
    std::ifstream in(compare_path);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", compare_path.c_str());
      return 2;
    }
    references = load(in);
  }
  std::ofstream saved;
  if (!save_path.empty()) saved.open(save_path);
  saved.precision(std::numeric_limits<double>::max_digits10);
  std::ofstream records;
  if (!record_path.empty()) records.open(record_path, std::ios::app);

  int status = 0;
  for (const sample::MakeCases make_cases : sample::registered()) {
    for (const sample::Case& c : make_cases()) {
      try {  // a failing case (an op refused on the device, say) must not hide the others
        if (compare_path.empty()) {
          const Measurement m = measure_per_example(c, budget_s);
          if (saved.is_open()) save(saved, c.name, m);
          if (records.is_open()) record(records, c.name, m, 0);
          print_row(c.name, m, std::nullopt, 0);
          continue;
        }
        const auto reference = references.find(c.name);
        if (reference == references.end()) {
          std::fprintf(stderr, "%s: no per-example result in %s\n", c.name.c_str(),
                       compare_path.c_str());
          return 2;
        }
        const Measurement& expected = reference->second;
        const double error = max_error(c.run(expected.count), expected.output);
        const bool exact = !is_floating(expected.output);
        if (exact ? error != 0 : !(error <= kTolerance)) {
          std::fprintf(stderr, "%s: batched result differs from the per-example one "
                       "(max error %.3g)\n", c.name.c_str(), error);
          status = 1;
        }
        if (check_only) continue;
        Measurement batched{c.examples, c.examples,
                            sample::median_seconds(c, c.examples, budget_s)};
        if (records.is_open()) record(records, c.name, batched, error);
        print_row(c.name, expected, batched.seconds, error);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "%s: %s\n", c.name.c_str(), error.what());
        status = 1;
      }
    }
  }
  return status;
}
