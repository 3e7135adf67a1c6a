#include "sample.hpp"

#include <algorithm>
#include <chrono>

namespace sample {

namespace {
std::vector<MakeCases>& registry() {
  static std::vector<MakeCases> samples;
  return samples;
}
vmap::Device current_device = vmap::kCPU;
}  // namespace

Registration::Registration(MakeCases make_cases) { registry().push_back(make_cases); }

const std::vector<MakeCases>& registered() { return registry(); }

vmap::Device device() { return current_device; }
void set_device(vmap::Device device) { current_device = device; }

double seconds_of(const std::function<void()>& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int64_t examples_within(const Case& c, double budget_s) {
  c.run(1);  // warm-up: first touches of the allocator and the code
  const double one = std::max(seconds_of([&] { c.run(1); }), 1e-9);
  const auto affordable = static_cast<int64_t>(budget_s / one);
  return std::clamp<int64_t>(affordable, 1, c.examples);
}

double median_seconds(const Case& c, int64_t count, double budget_s) {
  c.run(count);  // warm-up
  std::vector<double> times;
  double total = 0;
  while (times.size() < 3 || (total < budget_s && times.size() < 100)) {
    times.push_back(seconds_of([&] { c.run(count); }));
    total += times.back();
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

}  // namespace sample
