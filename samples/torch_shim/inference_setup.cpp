// Linked into every executable built against LibTorch through the shim: it runs as the
// LibTorch reference numbers of PERFORMANCE.md were taken, without autograd recording
// (NoGradGuard's switch, held for the main thread) and with as many intra-op threads as
// OMP_NUM_THREADS says (LibTorch's default is every core).
#include <ATen/Parallel.h>
#include <torch/types.h>

#include <cstdlib>

namespace {

struct InferenceSetup {
  InferenceSetup() {
    c10::GradMode::set_enabled(false);
    if (const char* threads = std::getenv("OMP_NUM_THREADS"); threads && std::atoi(threads) > 0)
      at::set_num_threads(std::atoi(threads));
  }
};
const InferenceSetup inference_setup;

}  // namespace
