// A DeviceBackend on the host, so the device dispatch (to/copy_, the engine's op-name table,
// reductions, products, indexed copies) is tested on machines without a GPU. Its "device"
// memory is mapped without access except while a backend call runs: host code that reads a
// device tensor's data directly crashes the test instead of passing by accident.
#pragma once

#include "backend.hpp"
#include "device_functors.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace vmap::device_testing {

namespace functors = detail::scalar_functors;
using detail::DeviceOp;
using detail::ElementwiseCall;
using detail::GemmCall;
using detail::IndexedCopyCall;
using detail::ReduceCall;
using detail::ReduceOp;

class EmulatedBackend final : public detail::DeviceBackend {
 public:
  ~EmulatedBackend() override {
    for (auto& [block, size] : blocks_) munmap(block, size);
  }

  int64_t live_blocks() const { return static_cast<int64_t>(blocks_.size()); }
  int64_t calls() const { return calls_; }
  // Bytes copied from the host to the device so far.
  int64_t host_to_device_bytes() const { return host_to_device_bytes_; }

  void* allocate(size_t nbytes) override {
    std::lock_guard lock(mutex_);
    const size_t size = (std::max<size_t>(nbytes, 1) + page - 1) / page * page;
    void* block = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) throw std::bad_alloc();
    blocks_[block] = size;
    return block;
  }
  void release(void* data, size_t) override {
    std::lock_guard lock(mutex_);
    munmap(data, blocks_.at(data));
    blocks_.erase(data);
  }
  void copy(void* destination, Device destination_device, const void* source,
            Device source_device, size_t nbytes) override {
    Access access(*this);
    if (source_device == kCPU && destination_device != kCPU)
      host_to_device_bytes_ += static_cast<int64_t>(nbytes);
    std::memmove(destination, source, nbytes);
  }
  void elementwise(const char* op, const ElementwiseCall& call) override {
    Access access(*this);
    const bool found = functors::visit_device_op(
        call.op, call.out_dtype, call.in_dtypes, call.inputs,
        [&]<class F, class Out, class... In>(F f, functors::Type<Out>, functors::Type<In>...) {
          run_loop<Out, In...>(call, f, std::index_sequence_for<In...>{});
        });
    if (!found) throw Error(std::string(op) + ": no device kernel for these dtypes");
  }
  void reduce(const char*, const ReduceCall& call) override {
    Access access(*this);
    functors::visit_type(call.in_dtype, [&]<class In>(functors::Type<In>) {
      if (call.op == ReduceOp::sum) {
        using Sum = std::conditional_t<std::is_floating_point_v<In>, In, int64_t>;
        reduce_lines<In, Sum>(call, functors::Add{}, Sum(0));
      } else if (call.op == ReduceOp::max) {
        reduce_lines<In, In>(call, functors::Maximum{}, extreme<In>(false));
      } else {
        reduce_lines<In, In>(call, functors::Minimum{}, extreme<In>(true));
      }
      return true;
    });
  }
  bool indexed_copy(const char*, const IndexedCopyCall& call) override {
    Access access(*this);
    int64_t numel = 1;
    for (int d = 0; d < call.rank; ++d) numel *= call.out_sizes[d];
    const int64_t size = detail::element_size(call.dtype);
    bool in_range = true;
    for (int64_t linear = 0; linear < numel; ++linear) {
      int64_t self_offset = 0, index_offset = 0, rest = linear;
      for (int d = call.rank - 1; d >= 0; --d) {
        const int64_t position = rest % call.out_sizes[d];
        rest /= call.out_sizes[d];
        index_offset += position * call.index_strides[d];
        if (d != call.dim) self_offset += position * call.self_strides[d];
      }
      const int64_t i = call.index_dtype == kInt32
                            ? static_cast<const int32_t*>(call.index)[index_offset]
                            : static_cast<const int64_t*>(call.index)[index_offset];
      if (i < 0 || i >= call.dim_size) {
        in_range = false;
        continue;
      }
      std::memcpy(static_cast<char*>(call.out) + linear * size,
                  static_cast<const char*>(call.self) +
                      (self_offset + i * call.self_strides[call.dim]) * size,
                  size);
    }
    return in_range;
  }
  // A compiled kernel's host form over every index (its device source is what CI compiles,
  // Note [Compiled kernels on the device]).
  bool compiled_kernel(const char*, const detail::CompiledKernelCall& call) override {
    Access access(*this);
    ++compiled_kernels_;
    call.host(call.host_context);
    return true;
  }
  int64_t compiled_kernels() const { return compiled_kernels_; }
  void gemm(const char*, const GemmCall& call) override {
    Access access(*this);
    if (call.dtype == kFloat64) return product<double>(call);
    product<float>(call);
  }
  void synchronize() override {}

 private:
  static inline const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));

  // Opens every block for the duration of one backend call.
  class Access {
   public:
    explicit Access(EmulatedBackend& backend) : backend_(backend), lock_(backend.mutex_) {
      ++backend_.calls_;
      protect(PROT_READ | PROT_WRITE);
    }
    ~Access() { protect(PROT_NONE); }

   private:
    void protect(int flags) {
      for (auto& [block, size] : backend_.blocks_) mprotect(block, size, flags);
    }
    EmulatedBackend& backend_;
    std::lock_guard<std::mutex> lock_;
  };

  template <class Out, class... In, class F, size_t... I>
  static void run_loop(const ElementwiseCall& call, F f, std::index_sequence<I...>) {
    std::tuple<In...> constants;
    ((call.is_constant[I + 1]
          ? (void)std::memcpy(&std::get<I>(constants), call.constants[I + 1], sizeof(In))
          : (void)0),
     ...);
    for (int64_t linear = 0; linear < call.numel; ++linear) {
      int64_t offsets[sizeof...(In) + 1] = {};
      int64_t rest = linear;
      for (int d = call.rank - 1; d >= 0; --d) {
        const int64_t position = rest % call.sizes[d];
        rest /= call.sizes[d];
        for (int operand = 0; operand <= call.inputs; ++operand)
          offsets[operand] += position * call.strides[operand][d];
      }
      *reinterpret_cast<Out*>(call.base[0] + offsets[0]) =
          f((call.is_constant[I + 1]
                 ? std::get<I>(constants)
                 : *reinterpret_cast<const In*>(call.base[I + 1] + offsets[I + 1]))...);
    }
  }

  template <class T>
  static T extreme(bool highest) {
    if constexpr (std::is_floating_point_v<T>)
      return highest ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
    return highest ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
  }

  template <class In, class Out, class Op>
  static void reduce_lines(const ReduceCall& call, Op op, Out initial) {
    const In* input = static_cast<const In*>(call.input);
    Out* output = static_cast<Out*>(call.output);
    for (int64_t line = 0; line < call.outer; ++line) {
      Out accumulator = initial;
      for (int64_t j = 0; j < call.inner; ++j)
        accumulator = op(accumulator, static_cast<Out>(input[line * call.inner + j]));
      output[line] = accumulator;
    }
  }

  template <class T>
  static void product(const GemmCall& call) {
    const T* a = static_cast<const T*>(call.a.data);
    const T* b = static_cast<const T*>(call.b.data);
    T* out = static_cast<T*>(call.out);
    for (int64_t batch = 0; batch < call.batch; ++batch)
      for (int64_t i = 0; i < call.m; ++i)
        for (int64_t j = 0; j < call.n; ++j) {
          T& result = out[(batch * call.m + i) * call.n + j];
          double sum = call.accumulate ? double(result) : 0.0;
          for (int64_t l = 0; l < call.k; ++l)
            sum += double(a[batch * call.a.batch_stride + i * call.a.row_stride + l * call.a.col_stride]) *
                   double(b[batch * call.b.batch_stride + l * call.b.row_stride + j * call.b.col_stride]);
          result = static_cast<T>(sum);
        }
  }

  std::mutex mutex_;
  std::unordered_map<void*, size_t> blocks_;
  int64_t calls_ = 0;
  int64_t compiled_kernels_ = 0;
  int64_t host_to_device_bytes_ = 0;
};

}  // namespace vmap::device_testing
