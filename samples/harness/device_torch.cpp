// sample::device_unusable and sample::synchronize for the builds against LibTorch
// (device_runtime.cpp has ours).
#include "sample.hpp"

#include <torch/cuda.h>

namespace sample {

std::string device_unusable(vmap::Device device) {
  if (device.is_cpu() || torch::cuda::is_available()) return "";
  return "LibTorch sees no CUDA device (or was built without CUDA)";
}

void synchronize() {
  if (device().is_cuda()) torch::cuda::synchronize();
}

}  // namespace sample
