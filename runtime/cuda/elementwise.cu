// The one generic elementwise kernel: out = f(in...) over a collapsed strided loop, with
// vectorised loads and stores along rows (Note [Rows of vectors]).
// f is the scalar functor of the op (scalar_functors.hpp), shared with the host tests.
#include "cuda_common.cuh"
#include "device_functors.hpp"

#include <cuda/std/tuple>
#include <cuda/std/utility>

#include <cstring>

namespace vmap::detail::cuda {
namespace {

namespace functors = scalar_functors;

// An input: device memory at `base` (plus a per-element byte offset), or one value.
template <class T>
struct Input {
  using type = T;
  const char* base;
  T value;
  bool constant;
};

// The loop's geometry as the kernel reads it (the ElementwiseCall minus host-only fields).
struct Geometry {
  int rank;
  int64_t numel;
  int64_t sizes[device_max_dims];
  int64_t strides[device_max_operands][device_max_dims];
  char* out;
};

constexpr int vector_width = 4;  // elements per thread in the contiguous path

template <class T>
struct alignas(sizeof(T) * vector_width) Vector {
  T lanes[vector_width];
};

template <class T>
__device__ T read(const Input<T>& input, int64_t byte_offset) {
  return input.constant ? input.value : *reinterpret_cast<const T*>(input.base + byte_offset);
}

// Note [Rows of vectors]
// The vectorised path covers a collapsed loop of rank 1 (one row) or 2 ([rows, inner], inner
// a multiple of the vector width) where the output's innermost dim is contiguous and each
// input's is contiguous or broadcast (stride 0, as `[n, m] + [m]`'s first dim and `[n, 1]`'s
// second): each thread then loads and stores whole vectors of one row, and finds its row with
// one (32-bit where it fits) division. Other layouts take the strided path, one element a
// thread with every coordinate recomputed (BM_BroadcastAdd ran there at 0.29 of a copy).
template <class T>
__device__ Vector<T> read_vector(const Input<T>& input, int64_t byte_offset, int64_t inner_stride) {
  if (input.constant || inner_stride == 0) {
    const T value = read(input, byte_offset);
    Vector<T> result;
    for (int lane = 0; lane < vector_width; ++lane) result.lanes[lane] = value;
    return result;
  }
  return *reinterpret_cast<const Vector<T>*>(input.base + byte_offset);
}

// The row of a flat element index (a 32-bit division where the loop fits in 32 bits).
__device__ int64_t row_of(int64_t element, int64_t inner, int64_t numel) {
  if (numel <= int64_t{UINT32_MAX})
    return static_cast<uint32_t>(element) / static_cast<uint32_t>(inner);
  return element / inner;
}

// The element type of input I (a __global__ template may have only one parameter pack).
template <size_t I, class Inputs>
using InputType = typename ::cuda::std::tuple_element_t<I, Inputs>::type;

template <class Out, class F, class Inputs, size_t... I>
__global__ void elementwise_kernel(Geometry geometry, bool vectorised, F f, Inputs inputs,
                                   ::cuda::std::index_sequence<I...>) {
  const int64_t thread = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int64_t threads = int64_t{gridDim.x} * blockDim.x;
  Out* out = reinterpret_cast<Out*>(geometry.out);
  if (vectorised) {  // Note [Rows of vectors]
    const bool rows = geometry.rank == 2;
    const int64_t inner = geometry.sizes[geometry.rank - 1];
    const int64_t whole = geometry.numel / vector_width * vector_width;  // all of it in rows
    for (int64_t element = thread * vector_width; element < whole;
         element += threads * vector_width) {
      const int64_t row = rows ? row_of(element, inner, geometry.numel) : 0;
      const int64_t column = element - row * inner;
      const ::cuda::std::tuple<Vector<InputType<I, Inputs>>...> loaded{read_vector(
          ::cuda::std::get<I>(inputs),
          (rows ? row * geometry.strides[I + 1][0] : 0) +
              column * geometry.strides[I + 1][geometry.rank - 1],
          geometry.strides[I + 1][geometry.rank - 1])...};
      Vector<Out> result;
      for (int lane = 0; lane < vector_width; ++lane)
        result.lanes[lane] = f(::cuda::std::get<I>(loaded).lanes[lane]...);
      *reinterpret_cast<Vector<Out>*>(geometry.out + (rows ? row * geometry.strides[0][0] : 0) +
                                      column * int64_t{sizeof(Out)}) = result;
    }
    for (int64_t element = whole + thread; element < geometry.numel; element += threads)
      out[element] = f(read(::cuda::std::get<I>(inputs), element * geometry.strides[I + 1][0])...);
    return;
  }
  for (int64_t linear = thread; linear < geometry.numel; linear += threads) {
    int64_t offsets[sizeof...(I) + 1] = {};
    for_each_coordinate(linear, geometry.numel, geometry.rank, geometry.sizes,
                        [&](int d, int64_t position) {
                          for (int operand = 0; operand <= int(sizeof...(I)); ++operand)
                            offsets[operand] += position * geometry.strides[operand][d];
                        });
    *reinterpret_cast<Out*>(geometry.out + offsets[0]) =
        f(read(::cuda::std::get<I>(inputs), offsets[I + 1])...);
  }
}

bool aligned_for_vectors(const void* pointer, size_t element_size) {
  return reinterpret_cast<uintptr_t>(pointer) % (element_size * vector_width) == 0;
}

template <class Out, class... In, class F, size_t... I>
void launch(const char* op, const ElementwiseCall& call, F f, ::cuda::std::index_sequence<I...> sequence) {
  Geometry geometry{call.rank, call.numel, {}, {}, call.base[0]};
  for (int d = 0; d < call.rank; ++d) {
    geometry.sizes[d] = call.sizes[d];
    for (int operand = 0; operand <= call.inputs; ++operand)
      geometry.strides[operand][d] = call.strides[operand][d];
  }
  ::cuda::std::tuple<Input<In>...> inputs{Input<In>{call.base[I + 1], In{}, call.is_constant[I + 1]}...};
  ((call.is_constant[I + 1]
        ? (void)std::memcpy(&::cuda::std::get<I>(inputs).value, call.constants[I + 1], sizeof(In))
        : (void)0),
   ...);
  // Note [Rows of vectors]: every vector starts a whole number of vectors into its row.
  const int inner = call.rank - 1;
  const bool rows = call.rank == 2;
  const auto vectors_fit = [&](int operand, size_t element_size) {
    return call.strides[operand][inner] == int64_t(element_size) &&
           aligned_for_vectors(call.base[operand], element_size) &&
           (!rows || call.strides[operand][0] % int64_t(element_size * vector_width) == 0);
  };
  bool vectorised = (call.rank == 1 || (rows && call.sizes[inner] % vector_width == 0)) &&
                    vectors_fit(0, sizeof(Out));
  ((vectorised = vectorised && (call.is_constant[I + 1] || call.strides[I + 1][inner] == 0 ||
                                vectors_fit(I + 1, sizeof(In)))),
   ...);
  const int64_t per_block = int64_t{block_threads} * (vectorised ? vector_width : 1);
  elementwise_kernel<Out><<<grid_for(call.numel, per_block), block_threads, 0,
                                      current_stream()>>>(geometry, vectorised, f, inputs, sequence);
  check_launch(op);
}

}  // namespace

void launch_elementwise(const char* op, const ElementwiseCall& call) {
  const bool found = functors::visit_device_op(
      call.op, call.out_dtype, call.in_dtypes, call.inputs,
      [&]<class F, class Out, class... In>(F f, functors::Type<Out>, functors::Type<In>...) {
        launch<Out, In...>(op, call, f, ::cuda::std::index_sequence_for<In...>{});
      });
  if (!found) throw Error(std::string(op) + ": no CUDA kernel for these dtypes");
}

}  // namespace vmap::detail::cuda
