// Linked into every executable built against LibTorch through the shim: it runs as the
// LibTorch reference numbers of PERFORMANCE.md were taken, without autograd recording
// (NoGradGuard's switch, held for the main thread), and with as many intra-op threads as our
// runtime's OpenMP takes: OMP_NUM_THREADS, else every core. (Debian's LibTorch 1.13 starts
// with one thread when OMP_NUM_THREADS is unset, so the demo's default run compared our two
// threads with its one.)
#include <ATen/Parallel.h>
#include <torch/types.h>

#include <cstdlib>
#include <thread>

namespace {

struct InferenceSetup {
  InferenceSetup() {
    c10::GradMode::set_enabled(false);
    const char* requested = std::getenv("OMP_NUM_THREADS");
    const int threads = requested && std::atoi(requested) > 0
                            ? std::atoi(requested)
                            : static_cast<int>(std::thread::hardware_concurrency());
    if (threads > 0) at::set_num_threads(threads);
  }
};
const InferenceSetup inference_setup;

}  // namespace
