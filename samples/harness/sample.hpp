// What a sample gives the harness: its workloads, each a function of how many examples to
// run. The same sample source is built twice, as written and rewritten by clang-vmap, and
// linked with a driver (driver.cpp: times, checks agreement, prints the table row) or with
// the Google Benchmark main (bench/bench_main.cpp).
#pragma once

#include <vmap/vmap.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sample {

struct Case {
  std::string name;  // workload and size, as the table shows it
  int64_t examples;  // trip count of the outermost vmap loop for the whole problem
  // Runs the sample's loop over its first `count` examples (inputs narrowed along the
  // outer loop) and returns what it computed. Inputs are made before, outside the timing.
  std::function<vmap::Tensor(int64_t count)> run;
};
using CaseList = std::vector<Case>;
using MakeCases = CaseList (*)();

// One object per sample source, at namespace scope: `const sample::Registration
// registration(cases);`. Cases are made when the executable runs them, not at start-up.
struct Registration {
  explicit Registration(MakeCases make_cases);
};
const std::vector<MakeCases>& registered();

// Where the cases put their inputs and outputs (the driver's --device, default the CPU).
// Only the cases' set-up reads it; the sample loops follow their tensors.
vmap::Device device();
void set_device(vmap::Device device);
// Why tensors cannot be made on `device` here, empty when they can (harness/device_*.cpp:
// one for our runtime, one for LibTorch).
std::string device_unusable(vmap::Device device);
// Waits for the work queued on device() (ops on a GPU return before it finishes); nothing
// to wait for on the CPU.
void synchronize();

// Seconds of wall time `run` takes, device work included.
double seconds_of(const std::function<void()>& run);

// How many examples of `c` the per-example build runs so that the timing takes about
// `budget_s`: the whole problem when it fits, else a prefix whose time is scaled up.
int64_t examples_within(const Case& c, double budget_s);

// Median seconds of `c.run(count)` over repetitions lasting about `budget_s` (at least 3).
double median_seconds(const Case& c, int64_t count, double budget_s);

}  // namespace sample
