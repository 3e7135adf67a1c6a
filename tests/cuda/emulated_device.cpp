// Linked into test executables only (the samples' `<name>_batched_emulated` builds): registers
// an EmulatedBackend before main, so `--device cuda` runs the program's device dispatch on the
// host, where any host read of device memory crashes. The runtime library itself never holds
// a test backend.
#include "emulated_backend.hpp"

namespace {

struct EmulatedDevice {
  EmulatedDevice() { vmap::detail::register_device_backend(&backend); }
  ~EmulatedDevice() { vmap::detail::register_device_backend(nullptr); }
  vmap::device_testing::EmulatedBackend backend;
};
const EmulatedDevice emulated_device;

}  // namespace
