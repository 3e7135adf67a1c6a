// Google Benchmark over every registered sample case, built once per build of the samples:
// as written (VMAP_SAMPLES_PER_EXAMPLE=1), their clang-vmap rewrites and, with LibTorch,
// as written against LibTorch (VMAP_SAMPLES_PER_EXAMPLE=1) and hand-batched in LibTorch
// (Note [The samples side by side with LibTorch] in ../CMakeLists.txt). Each benchmark
// reports examples/s (items_per_second), so the builds compare directly even though the
// loops run only a prefix of the examples (Note [Timing a prefix] in harness/driver.cpp);
// scripts/bench.sh prints the ratios. `--device cuda` runs every case on the GPU (inputs and
// outputs there, each iteration waits for the device); without one it says why and exits 77.
#include "../harness/sample.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

namespace {

// One iteration of the per-example build takes about this long.
constexpr double kPerExampleIterationS = 0.05;

void run_case(benchmark::State& state, const sample::Case& c, int64_t count) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(c.run(count));
    sample::synchronize();
  }
  state.SetItemsProcessed(state.iterations() * count);
  state.counters["examples_run"] = static_cast<double>(count);
  state.counters["examples_total"] = static_cast<double>(c.examples);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  vmap::Device device = vmap::kCPU;  // the one flag of ours among what Initialize left
  if (argc == 3 && std::string_view(argv[1]) == "--device") {
    const std::string_view name = argv[2];
    if (name != "cpu" && name != "cuda") {
      std::fprintf(stderr, "%s: --device cpu|cuda\n", argv[0]);
      return 2;
    }
    if (name == "cuda") device = vmap::kCUDA;
    argc = 1;
  }
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (const std::string why = sample::device_unusable(device); !why.empty()) {
    std::fprintf(stderr, "skipped: --device cuda: %s\n", why.c_str());
    return 77;
  }
  sample::set_device(device);
  std::vector<sample::Case> cases;
  for (const sample::MakeCases make_cases : sample::registered())
    for (sample::Case& c : make_cases()) cases.push_back(std::move(c));
  for (const sample::Case& c : cases) {
    const int64_t count = VMAP_SAMPLES_PER_EXAMPLE
                              ? sample::examples_within(c, kPerExampleIterationS)
                              : c.examples;
    // Commas would split the CSV columns scripts/bench.sh reads.
    std::string name = c.name;
    std::replace(name.begin(), name.end(), ',', ';');
    benchmark::RegisterBenchmark(name.c_str(), run_case, c, count)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
