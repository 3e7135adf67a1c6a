// Reductions through CUB (one line per output element) and the indexed-copy kernel behind
// gather and index_select.
#include "cuda_common.cuh"
#include <vmap/detail/scalar_functors.hpp>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <limits>

namespace vmap::detail::cuda {
namespace {

namespace functors = scalar_functors;
using functors::Type;

template <class Out>
struct ConvertTo {
  template <class T>
  __host__ __device__ Out operator()(T value) const { return static_cast<Out>(value); }
};

struct LineStart {
  int64_t line_length;
  __host__ __device__ int64_t operator()(int64_t line) const { return line * line_length; }
};

// Lines up to this long get one thread each; CUB's segmented reduce spends a block per line.
constexpr int64_t short_line = 16;

template <class In, class Out, class Op>
__global__ void short_lines_kernel(const In* input, Out* output, int64_t lines,
                                   int64_t line_length, Op reduce_op, Out initial) {
  const int64_t threads = int64_t{gridDim.x} * blockDim.x;
  for (int64_t line = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; line < lines;
       line += threads) {
    Out accumulator = initial;
    for (int64_t j = 0; j < line_length; ++j)
      accumulator = reduce_op(accumulator, static_cast<Out>(input[line * line_length + j]));
    output[line] = accumulator;
  }
}

template <class In, class Out, class Op>
void reduce_lines(const char* op, const ReduceCall& call, Op reduce_op, Out initial) {
  const In* input = static_cast<const In*>(call.input);
  Out* output = static_cast<Out*>(call.output);
  const cudaStream_t stream = current_stream();
  if (call.outer > 1 && call.inner <= short_line) {
    short_lines_kernel<<<grid_for(call.outer, block_threads), block_threads, 0, stream>>>(
        input, output, call.outer, call.inner, reduce_op, initial);
    check_launch(op);
    return;
  }
  const auto converted = thrust::make_transform_iterator(input, ConvertTo<Out>{});
  size_t scratch_bytes = 0;
  if (call.outer == 1) {
    check(cub::DeviceReduce::Reduce(nullptr, scratch_bytes, converted, output, call.inner,
                                    reduce_op, initial, stream),
          op, "cub::DeviceReduce::Reduce");
    Scratch scratch(scratch_bytes);
    check(cub::DeviceReduce::Reduce(scratch.data(), scratch_bytes, converted, output, call.inner,
                                    reduce_op, initial, stream),
          op, "cub::DeviceReduce::Reduce");
    return;
  }
  const auto starts = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                      LineStart{call.inner});
  check(cub::DeviceSegmentedReduce::Reduce(nullptr, scratch_bytes, converted, output, call.outer,
                                           starts, starts + 1, reduce_op, initial, stream),
        op, "cub::DeviceSegmentedReduce::Reduce");
  Scratch scratch(scratch_bytes);
  check(cub::DeviceSegmentedReduce::Reduce(scratch.data(), scratch_bytes, converted, output,
                                           call.outer, starts, starts + 1, reduce_op, initial,
                                           stream),
        op, "cub::DeviceSegmentedReduce::Reduce");
}

// The identity of max (lowest) and of min (highest); NaN inputs still win (functors' rule).
template <class T>
T lowest() {
  if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::lowest();
}
template <class T>
T highest() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::max();
}

template <class Element, class Index>
__global__ void indexed_copy_kernel(IndexedCopyCall call, int64_t numel, int* out_of_range) {
  const Element* self = static_cast<const Element*>(call.self);
  const Index* index = static_cast<const Index*>(call.index);
  Element* out = static_cast<Element*>(call.out);
  const int64_t threads = int64_t{gridDim.x} * blockDim.x;
  for (int64_t linear = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; linear < numel;
       linear += threads) {
    int64_t self_offset = 0, index_offset = 0;
    for_each_coordinate(linear, numel, call.rank, call.out_sizes, [&](int d, int64_t position) {
      index_offset += position * call.index_strides[d];
      if (d != call.dim) self_offset += position * call.self_strides[d];
    });
    const int64_t i = index[index_offset];
    if (i < 0 || i >= call.dim_size) {
      *out_of_range = 1;
      continue;
    }
    out[linear] = self[self_offset + i * call.self_strides[call.dim]];
  }
}

// Copies move bytes: one kernel per element size, not per dtype.
template <class F>
void visit_element_size(Dtype dtype, F&& f) {
  switch (element_size(dtype)) {
    case 1: return f(Type<uint8_t>{});
    case 4: return f(Type<uint32_t>{});
    default: return f(Type<uint64_t>{});
  }
}

}  // namespace

void launch_reduce(const char* op, const ReduceCall& call) {
  const bool found = functors::visit_type(call.in_dtype, [&]<class In>(Type<In>) {
    using Sum = std::conditional_t<std::is_floating_point_v<In>, In, int64_t>;
    switch (call.op) {
      case ReduceOp::sum:
        if (call.out_dtype != DtypeOf<Sum>::value) return false;
        reduce_lines<In, Sum>(op, call, functors::Add{}, Sum(0));
        return true;
      case ReduceOp::max:
        if (call.out_dtype != call.in_dtype) return false;
        reduce_lines<In, In>(op, call, functors::Maximum{}, lowest<In>());
        return true;
      case ReduceOp::min:
        if (call.out_dtype != call.in_dtype) return false;
        reduce_lines<In, In>(op, call, functors::Minimum{}, highest<In>());
        return true;
    }
    return false;
  });
  if (!found) throw Error(std::string(op) + ": no CUDA reduction for these dtypes");
}

bool launch_indexed_copy(const char* op, const IndexedCopyCall& call) {
  int64_t numel = 1;
  for (int d = 0; d < call.rank; ++d) numel *= call.out_sizes[d];
  Scratch flag(sizeof(int));
  const cudaStream_t stream = current_stream();
  check(cudaMemsetAsync(flag.data(), 0, sizeof(int), stream), op, "cudaMemsetAsync");
  visit_element_size(call.dtype, [&]<class Element>(Type<Element>) {
    auto run = [&]<class Index>(Type<Index>) {
      indexed_copy_kernel<Element, Index><<<grid_for(numel, block_threads), block_threads, 0,
                                            stream>>>(call, numel, static_cast<int*>(flag.data()));
    };
    if (call.index_dtype == kInt32) run(Type<int32_t>{});
    else run(Type<int64_t>{});
  });
  check_launch(op);
  int out_of_range = 0;
  check(cudaMemcpyAsync(&out_of_range, flag.data(), sizeof(int), cudaMemcpyDeviceToHost, stream),
        op, "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream), op, "cudaStreamSynchronize");
  return out_of_range == 0;
}

}  // namespace vmap::detail::cuda
