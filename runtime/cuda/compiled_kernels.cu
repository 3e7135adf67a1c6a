// Kernels compiled at run time (Note [Compiled kernels on the device] in backend.hpp): NVRTC
// turns a CompiledKernelCall's source into machine code for the current device, which is
// cached in memory (one load per process) and on disk (one compile per machine), then
// launched on the current stream.
#include "cuda_common.cuh"

#include <nvrtc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace vmap::detail::cuda {
namespace {

void check_nvrtc(nvrtcResult status, const char* op, const char* what) {
  if (status != NVRTC_SUCCESS)
    throw_error(op, std::string(what) + ": " + nvrtcGetErrorString(status));
}

// `source` compiled for `architecture` (compute_XY: PTX; sm_XY: machine code), or a
// vmap::Error with the compiler's log. The program is the user's code as written: no fast
// math and no contraction into FMA (which the host compiler does not do for x86-64 without
// -mfma either), so a count of iterations to escape is the CPU's, not one more or less.
// libcu++ (the std shims of fused kernels' programs): $VMAP_CUDA_INCLUDE, else the toolkit's
// include directory found at configure time.
std::string cccl_include() {
  const char* set = std::getenv("VMAP_CUDA_INCLUDE");
  const std::string include = set && *set ? set : VMAP_CUDA_INCLUDE_DIR;
  return "-I" + include + "/cccl";
}

std::string compile(const char* op, const CompiledKernelCall& call, const std::string& architecture) {
  nvrtcProgram program;
  check_nvrtc(nvrtcCreateProgram(&program, call.source, "vmap_kernel.cu", call.header_count,
                                 call.header_texts, call.header_names),
              op, "nvrtcCreateProgram");
  const std::string arch_option = "--gpu-architecture=" + architecture;
  const std::string include = cccl_include();
  // -default-device: the element types' functions (fused kernels) are device functions.
  // -lineinfo: compute-sanitizer and profilers name the kernel's lines (no cost at run time).
  // -pch: the headers a program starts with are parsed once per process (NVRTC's automatic
  // precompiled header): a fused kernel after the first compiles in about 0.25 s, not 1.1 s.
  const char* options[] = {arch_option.c_str(), "--std=c++20", "--fmad=false", "-w",
                           "-default-device", "-lineinfo", "-pch", include.c_str()};
  const nvrtcResult compiled =
      nvrtcCompileProgram(program, static_cast<int>(std::size(options)), options);
  if (compiled != NVRTC_SUCCESS) {
    size_t size = 0;
    nvrtcGetProgramLogSize(program, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(program, log.data());
    nvrtcDestroyProgram(&program);
    throw_error(op, "the kernel's device code does not compile (NVRTC, " + architecture +
                         "):\n" + log);
  }
  const bool ptx = architecture.rfind("compute_", 0) == 0;
  size_t size = 0;
  check_nvrtc(ptx ? nvrtcGetPTXSize(program, &size) : nvrtcGetCUBINSize(program, &size), op,
              "nvrtcGetCode");
  std::string code(size, '\0');
  check_nvrtc(ptx ? nvrtcGetPTX(program, code.data()) : nvrtcGetCUBIN(program, code.data()), op,
              "nvrtcGetCode");
  nvrtcDestroyProgram(&program);
  return code;
}

// Where compiled kernels are kept between runs: $VMAP_KERNEL_CACHE, else
// $XDG_CACHE_HOME/clang-vmap, else ~/.cache/clang-vmap; none (memory only) when unset or
// unwritable.
std::filesystem::path cache_directory() {
  std::filesystem::path directory;
  if (const char* set = std::getenv("VMAP_KERNEL_CACHE"); set && *set)
    directory = set;
  else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    directory = std::filesystem::path(xdg) / "clang-vmap";
  else if (const char* home = std::getenv("HOME"); home && *home)
    directory = std::filesystem::path(home) / ".cache" / "clang-vmap";
  std::error_code error;
  if (!directory.empty()) std::filesystem::create_directories(directory, error);
  return error ? std::filesystem::path() : directory;
}

// The key a kernel is cached under: the compiler's version, the architecture, its headers
// (hashed) and the whole source. A file holds the key in full before the code, so two keys
// of one hash never mix.
std::string cache_key(const CompiledKernelCall& call, const std::string& architecture) {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  std::string headers;
  for (int h = 0; h < call.header_count; ++h)
    headers += std::string(call.header_names[h]) + '\0' + call.header_texts[h] + '\0';
  return "clang-vmap kernel 2, NVRTC " + std::to_string(major) + "." + std::to_string(minor) +
         ", " + architecture + ", headers " + std::to_string(std::hash<std::string>{}(headers)) +
         "\n" + call.source;
}

std::string cached_code(const std::filesystem::path& file, const std::string& key) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (contents.size() <= key.size() + 1 || contents.compare(0, key.size(), key) != 0 ||
      contents[key.size()] != '\0')
    return {};
  return contents.substr(key.size() + 1);
}

void store_code(const std::filesystem::path& file, const std::string& key, const std::string& code) {
  // Written aside and renamed: processes that compile the same kernel at once never read half
  // a file.
  std::filesystem::path partial = file;
  partial += "." + std::to_string(static_cast<long long>(getpid())) + ".partial";
  {
    std::ofstream out(partial, std::ios::binary);
    out << key << '\0' << code;
    if (!out) return;
  }
  std::error_code error;
  std::filesystem::rename(partial, file, error);
  if (error) std::filesystem::remove(partial, error);
}

struct LoadedKernel {
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
};

class KernelCache {
 public:
  cudaKernel_t get(const char* op, const CompiledKernelCall& call) {
    const std::string source = call.source;
    std::lock_guard lock(mutex_);
    if (auto found = loaded_.find(source); found != loaded_.end()) return found->second.kernel;
    const std::string architecture = device_architecture(op);
    const std::string key = cache_key(call, architecture);
    const std::filesystem::path directory = cache_directory();
    std::filesystem::path file;
    std::string code;
    if (!directory.empty()) {
      file = directory / (hex(std::hash<std::string>{}(key)) + ".cubin");
      code = cached_code(file, key);
    }
    if (code.empty()) {
      try {
        code = compile(op, call, architecture);
      } catch (const Error& error) {
        // Code the device compiler does not take (a name only the host has) runs on the
        // CPU; the user hears why, once.
        std::fprintf(stderr, "vmap: warning: %s\nvmap: this kernel runs on the CPU\n",
                     error.what());
        loaded_.emplace(source, LoadedKernel{});
        return nullptr;
      }
      if (!file.empty()) store_code(file, key, code);
    }
    LoadedKernel loaded;
    check(cudaLibraryLoadData(&loaded.library, code.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
          op, "cudaLibraryLoadData");
    check(cudaLibraryGetKernel(&loaded.kernel, loaded.library, "vmap_entry"), op,
          "cudaLibraryGetKernel");
    loaded_.emplace(source, loaded);
    return loaded.kernel;
  }

 private:
  static std::string hex(size_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016zx", value);
    return text;
  }
  static std::string device_architecture(const char* op) {
    int device = 0, major = 0, minor = 0;
    check(cudaGetDevice(&device), op, "cudaGetDevice");
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), op,
          "cudaDeviceGetAttribute");
    check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), op,
          "cudaDeviceGetAttribute");
    return "sm_" + std::to_string(major) + std::to_string(minor);
  }

  std::mutex mutex_;
  std::unordered_map<std::string, LoadedKernel> loaded_;  // never unloaded: kernels are few
};

KernelCache& kernel_cache() {
  static KernelCache* cache = new KernelCache();
  return *cache;
}

}  // namespace

bool launch_compiled_kernel(const char* op, const CompiledKernelCall& call) {
  if (call.count == 0) return true;
  const cudaKernel_t kernel = kernel_cache().get(op, call);
  if (!kernel) return false;
  const int threads = call.block_threads;
  void* arguments[] = {const_cast<void*>(call.arguments)};
  check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(grid_for(call.count, threads)),
                         dim3(threads), arguments, 0, current_stream()),
        op, "cudaLaunchKernel");
  return true;
}

}  // namespace vmap::detail::cuda

namespace vmap::detail {

void compile_device_kernel_ptx(const char* op, const CompiledKernelCall& call) {
  (void)cuda::compile(op, call, "compute_90");
}

}  // namespace vmap::detail
