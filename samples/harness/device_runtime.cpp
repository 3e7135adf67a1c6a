// sample::device_unusable and sample::synchronize for the builds on our runtime (the
// LibTorch builds have device_torch.cpp): the device backend's own answers.
#include "sample.hpp"

#include "backend.hpp"  // runtime/cuda: device_available, the backend's stream

namespace sample {

std::string device_unusable(vmap::Device device) {
  if (device == vmap::kCPU || vmap::detail::device_available()) return "";
#ifdef VMAP_HAVE_CUDA
  return "no CUDA device is present";
#else
  return "the runtime was built without CUDA (nvcc was not found at configure time)";
#endif
}

void synchronize() {
  if (device() != vmap::kCPU) vmap::detail::device_backend("synchronize").synchronize();
}

}  // namespace sample
