// What the runtime's sources share: tensor internals, dtype dispatch, output allocation, the
// elementwise engine and error reporting. Not installed; ops_*.cpp and the core include it.
#pragma once

#include <vmap/detail/parallel.hpp>
#include <vmap/vmap.hpp>

#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace vmap::detail {

// ---------------------------------------------------------------------------------------------
// Errors

// Throws vmap::Error("<op>: <args...>"), the arguments streamed one after another; <op> is
// the op the user called when one is open (Note [The op the user called] in vmap/types.hpp).
template <class... Args>
[[noreturn]] void fail(const char* op, const Args&... args) {
  std::ostringstream message;
  message << OpName::named(op) << ": ";
  (message << ... << args);
  throw Error(message.str());
}

// "[2, 3]"
std::string shape_str(IntList sizes);

// ---------------------------------------------------------------------------------------------
// Dtype dispatch

template <Dtype D> struct CppTypeOf;
template <> struct CppTypeOf<Dtype::Float32> { using type = float; };
template <> struct CppTypeOf<Dtype::Float64> { using type = double; };
template <> struct CppTypeOf<Dtype::Int32> { using type = int32_t; };
template <> struct CppTypeOf<Dtype::Int64> { using type = int64_t; };
template <> struct CppTypeOf<Dtype::Bool> { using type = bool; };
template <Dtype D>
using CppType = typename CppTypeOf<D>::type;

// Calls f(std::type_identity<T>{}) with T the element type of `dtype`:
//   visit_dtype(x.dtype(), [&]<class T>(std::type_identity<T>) { ... x.data_ptr<T>() ... });
template <class F>
decltype(auto) visit_dtype(Dtype dtype, F&& f) {
  switch (dtype) {
    case Dtype::Float32: return f(std::type_identity<float>{});
    case Dtype::Float64: return f(std::type_identity<double>{});
    case Dtype::Int32: return f(std::type_identity<int32_t>{});
    case Dtype::Int64: return f(std::type_identity<int64_t>{});
    case Dtype::Bool: return f(std::type_identity<bool>{});
  }
  __builtin_unreachable();
}

// ---------------------------------------------------------------------------------------------
// Tensor internals

inline constexpr int max_dims = 16;

// Sizes or strides, stored inline (no heap allocation per tensor).
class Dims {
 public:
  Dims() = default;
  Dims(IntList list) { assign(list); }
  void assign(IntList list);
  void push_back(int64_t value);
  void resize(size_t size, int64_t value = 0);
  void insert(size_t position, int64_t value);
  void erase(size_t position);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return values_.data(); }
  const int64_t* data() const { return values_.data(); }
  int64_t* begin() { return values_.data(); }
  int64_t* end() { return values_.data() + size_; }
  const int64_t* begin() const { return values_.data(); }
  const int64_t* end() const { return values_.data() + size_; }
  int64_t& operator[](size_t i) { return values_[i]; }
  int64_t operator[](size_t i) const { return values_[i]; }
  int64_t& back() { return values_[size_ - 1]; }
  operator IntList() const { return {values_.data(), size_}; }

 private:
  std::array<int64_t, max_dims> values_;  // only the first size_ are meaningful
  uint8_t size_ = 0;
};

// A buffer. Owned storage comes from the caching allocator and goes back to it when the last
// tensor using it dies; borrowed storage (from_blob) is never freed by us.
struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  Device device = kCPU;
  bool owned = true;
  // What lent borrowed memory and must hear when the last tensor using it dies: from_dlpack
  // holds the capsule here, whose deleter then runs (once, with the storage).
  std::shared_ptr<void> lender;

  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();
};

// Allocates the small fixed-size objects behind every tensor (TensorImpl, Storage and their
// shared_ptr control blocks) from per-thread free lists: malloc/free were a tenth of a small
// op's cost. Use with std::allocate_shared.
void* pool_allocate(size_t bytes);
void pool_deallocate(void* block, size_t bytes);
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(pool_allocate(n * sizeof(T))); }
  void deallocate(T* block, size_t n) { pool_deallocate(block, n * sizeof(T)); }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const { return true; }
};

// 64-byte aligned, reusing freed blocks of the same size class. Out of memory is the error of
// `op`, the op whose result it is.
std::shared_ptr<Storage> allocate_storage(size_t nbytes, Device device = kCPU,
                                          const char* op = "allocate");
std::shared_ptr<Storage> borrow_storage(void* data, size_t nbytes, Device device = kCPU);
// The allocator's statistics, for tests: blocks served from the cache vs fresh.
struct AllocatorStats {
  int64_t cache_hits = 0;
  int64_t fresh_allocations = 0;
  int64_t cached_bytes = 0;
  bool caching = true;  // false in sanitizer builds, so ASan sees every use after free
};
AllocatorStats allocator_stats();
void empty_allocator_cache();

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Dims sizes;
  Dims strides;        // in elements
  int64_t offset = 0;  // in elements
  int64_t numel = 1;
  Dtype dtype = kFloat32;
  bool contiguous = true;  // row-major with no gaps (sizes-1 dims ignored, like torch)

  Device device() const { return storage->device; }
  char* data() const {
    return static_cast<char*>(storage->data) + offset * element_size(dtype);
  }
  template <class T>
  T* data_as() const {
    return reinterpret_cast<T*>(data());
  }
  // Recomputes numel and contiguous after sizes/strides changed.
  void refresh();
};

[[noreturn]] void fail_undefined(const char* op);
// The impl of a defined tensor; throws "<op>: undefined tensor" otherwise.
inline TensorImpl& impl_of(const Tensor& tensor, const char* op = "tensor") {
  if (!tensor.defined()) [[unlikely]] fail_undefined(op);
  return *tensor.unsafe_impl();
}

// Counts tensors made and in-place ops run (op_count()). A relaxed load and store rather than
// a locked increment, a tenth of a small op's cost: counts from racing threads may merge, and
// the tests that read them run their ops on one thread.
extern std::atomic<int64_t> op_counter;
inline void note_op() {
  op_counter.store(op_counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

Dims contiguous_strides(IntList sizes);
// The product of `sizes`, every size and shape arithmetic goes through: the error naming `op`
// and the sizes when one is negative or the product overflows (or passes 2^48 elements).
int64_t checked_numel(const char* op, IntList sizes);
// A new contiguous tensor (uninitialised); errors (a bad shape, no usable device) name `op`,
// the factory the user called.
Tensor empty_tensor(IntList sizes, Dtype dtype, Device device = kCPU, const char* op = "empty");
// `op`'s result tensor: the live ResultInto's destination when it fits (Note [Results into
// a destination] in tensor.hpp) and overlaps none of `reads`, else empty_tensor. A pointwise
// op's caller guarantees the overlap itself; an op that writes its result and then reads its
// inputs again (a GEMM, a gather, linear's bias) names them in `reads`.
Tensor result_tensor(const char* op, IntList sizes, Dtype dtype, Device device,
                     std::initializer_list<const Tensor*> reads = {});
// A tensor over `storage` (no copy).
Tensor make_tensor(std::shared_ptr<Storage> storage, IntList sizes, IntList strides,
                   int64_t offset, Dtype dtype);
// A view of base's storage with new geometry.
Tensor make_view(const Tensor& base, IntList sizes, IntList strides, int64_t offset);
// A 0-d tensor holding `value` converted to `dtype` (a plain cast, as LibTorch casts the
// wrapped numbers of pointwise ops).
Tensor scalar_tensor(Scalar value, Dtype dtype, Device device = kCPU);
// Throws "<op>: value cannot be converted to type int without overflow" where `value` does not
// fit `dtype` (Scalar::checked_to): the ops that LibTorch converts their number for checked.
void check_convertible(const char* op, Scalar value, Dtype dtype);

// Wraps a possibly negative dim into [0, rank); a 0-d tensor accepts -1 and 0 (as torch).
int64_t wrap_dim(const char* op, int64_t dim, int64_t rank);
Dims broadcast_shapes(const char* op, IntList a, IntList b);
// Whether `sizes` can be broadcast to `target` (expand's rule).
bool broadcastable_to(IntList sizes, IntList target);
void check_same_device(const char* op, const Tensor& a, const Tensor& b);
// Rejects non-CPU tensors with "<op>: CUDA tensors are not supported by the CPU backend".
[[noreturn]] void fail_not_cpu(const char* op);
inline void check_cpu(const char* op, const Tensor& tensor) {
  if (impl_of(tensor, op).device() != kCPU) [[unlikely]] fail_not_cpu(op);
}
// Rejects writes into tensors where several elements share memory (expanded views).
void check_writable(const char* op, const Tensor& tensor);
// The device of an op's inputs: kCUDA when any input is, the others then being on it or CPU
// 0-d tensors (LibTorch's rule); mixed devices are an error. runtime/cuda/device_ops.cpp.
Device common_device(const char* op, std::span<const Tensor> inputs);

// The promotion operand of a tensor / of a number (Note [Promotion tiers]).
inline Operand operand_of(const Tensor& tensor) {
  return tensor_operand(tensor.dtype(), tensor.dim());
}
inline Operand operand_of(const Scalar& value) { return number_operand(value.dtype()); }

// ---------------------------------------------------------------------------------------------
// Threading

// FunctionRef, parallel_grain, threads_for, parallel_for, parallel_for_each:
// <vmap/detail/parallel.hpp>.

// ---------------------------------------------------------------------------------------------
// Elementwise engine
//
// An op is a scalar functor; the engine broadcasts the inputs to the output's shape, collapses
// dims, and calls the functor over inner runs, threaded for large outputs. Functors that name
// a `static constexpr SimdOp simd_op` get Highway kernels on contiguous float/int runs.

inline constexpr int max_operands = 4;  // output + 3 inputs

// Built-in ops with vectorised kernels (runtime/src/simd_kernels.cpp): binary ones (the
// comparisons of the pointwise op list give bools), then unary float math (the `simd` column of the pointwise op list,
// vmap/detail/pointwise_ops.def). Each kernel computes its op's scalar functor
// (vmap/detail/scalar_functors.hpp) and runs the functor itself on the lanes (NaN,
// infinities, subnormal results, huge arguments) and tail elements its vector code is not
// exact or accurate on.
enum class SimdOp : int8_t {
  none, add, sub, mul, div, max, min,       // binary
#define VMAP_COMPARISON_OP(name, Functor, symbol) name,
#include <vmap/detail/pointwise_ops.def>
  logical_and, logical_or,                  // on bools
  sqrt, exp, log, sin, cos, tanh, sigmoid,  // unary float math
  cube, rsqrt, inverse_square,              // pow's strength reductions (and rsqrt)
  where                                     // where(condition, a, b): simd_where
};


// An iteration over operands (operand 0 the output), dims collapsed where contiguous.
struct StridedLoop {
  int operands = 0;
  int rank = 0;  // collapsed; innermost last
  int64_t numel = 0;
  std::array<int64_t, max_dims> sizes{};
  std::array<std::array<int64_t, max_dims>, max_operands> strides{};  // bytes
  std::array<char*, max_operands> base{};
};

// Inputs must be broadcastable to out's shape (error naming `op` otherwise).
StridedLoop plan_loop(const char* op, const Tensor& out, std::span<const Tensor> inputs);

// Calls inner(pointers, strides, count, row_strides, rows) over the loop's inner runs, a
// stack of `rows` runs of `count` elements at a time: run r of operand j starts at
// pointers[j] + r * row_strides[j] and steps strides[j] (bytes). Whole rows of the inner dim
// come `rows` at a time, so short inner runs (a broadcast over rows of 10) cost one call per
// stack, not one per run.
using InnerLoop = FunctionRef<void(char* const* pointers, const int64_t* strides, int64_t count,
                                   const int64_t* row_strides, int64_t rows)>;
void run_loop(const StridedLoop& loop, int64_t cost_per_element, InnerLoop inner);

// Vectorised runs of a built-in op on operands of `dtype`: `rows` runs (as InnerLoop's) of
// out[k] = a[k] op b[k], a/b advancing (step 1) or staying (step 0) along a run; comparisons
// write bools. Returns false when there is no kernel for that op/dtype.
bool simd_binary(SimdOp op, Dtype dtype, void* out, const void* a, int64_t a_step,
                 const void* b, int64_t b_step, int64_t count, const int64_t* row_strides,
                 int64_t rows);
// Vectorised run of a float_math op: out[k] = op(in[k]) (out may be in). Returns false when
// there is no kernel for that op/dtype.
bool simd_unary(SimdOp op, Dtype dtype, void* out, const void* in, int64_t count);

// out[k] = condition[k] ? a[k] : b[k] over `rows` runs of `count` (row_strides: bytes between
// runs of out, condition, a, b), the condition's bools contiguous along a run, a and b
// advancing (step 1) or staying (step 0). Returns false when there is no kernel for `dtype`.
// The masked updates of a per-example loop are wheres (Note [Control
// masks] in the batched API).
bool simd_where(Dtype dtype, void* out, const bool* condition, const void* a, int64_t a_step,
                const void* b, int64_t b_step, int64_t count, const int64_t* row_strides,
                int64_t rows);

// out[r * count + j] = source[r * source_stride + index[r * index_stride + j]] for r < rows,
// j < count, float32 or float64 elements (`dtype`), the indices checked a vector at a time;
// limit <= INT32_MAX. An index outside [0, limit) reads the row's element 0 and makes the
// result nonzero (0: every index was in range).
uint64_t simd_pick(Dtype dtype, void* out, const void* source, int64_t source_stride,
                   const int64_t* index, int64_t index_stride, int64_t rows, int64_t count,
                   int64_t limit);

// Runs the engine's op `op` over the loop on the output's device: the op is found by name and
// arity (Note [Device ops] in runtime/cuda/backend.hpp), a nullary op's value is computed here.
void run_loop_on_device(const char* op, const StridedLoop& loop, Dtype out_dtype,
                        std::span<const Dtype> in_dtypes, std::span<const Tensor> inputs,
                        const void* fill_value, bool stateful_functor);

namespace engine_internal {

template <class Out, class... In, class F>
void run_on_device(const char* op, const Tensor& out,
                   const std::array<Tensor, sizeof...(In)>& inputs, const F& f) {
  constexpr Dtype in_dtypes[] = {dtype_of<In>..., kBool};  // the extra entry keeps it non-empty
  Out fill_value{};
  if constexpr (sizeof...(In) == 0) fill_value = f();
  run_loop_on_device(op, plan_loop(op, out, inputs), dtype_of<Out>, {in_dtypes, sizeof...(In)},
                     inputs, &fill_value, !std::is_empty_v<F>);
}

template <class F>
constexpr SimdOp simd_op_of() {
  if constexpr (requires { F::simd_op; }) return F::simd_op;
  return SimdOp::none;
}

// One stack of runs (InnerLoop's arguments); a flat run is a stack of one.
template <class Out, class... In, class F, size_t... I>
void inner_run(const F& f, char* const* pointers, const int64_t* strides, int64_t count,
               const int64_t* row_strides, int64_t rows, std::index_sequence<I...>) {
  if constexpr (simd_op_of<F>() != SimdOp::none && sizeof...(In) == 1) {
    if (count >= 8 && strides[0] == sizeof(Out) && strides[1] == sizeof(Out) &&
        (std::is_same_v<Out, In> && ...)) {
      bool done = true;
      for (int64_t r = 0; r < rows && done; ++r)
        done = simd_unary(F::simd_op, dtype_of<Out>, pointers[0] + r * row_strides[0],
                          pointers[1] + r * row_strides[1], count);
      if (done) return;  // no kernel: the first row returned false, nothing was written
    }
  }
  if constexpr (simd_op_of<F>() != SimdOp::none && sizeof...(In) == 2) {
    using A = std::tuple_element_t<0, std::tuple<In...>>;
    if (count * rows >= 16 && strides[0] == sizeof(Out) &&
        (strides[1] == 0 || strides[1] == sizeof(A)) &&
        (strides[2] == 0 || strides[2] == sizeof(A)) &&
        simd_binary(F::simd_op, dtype_of<A>, pointers[0], pointers[1], strides[1] ? 1 : 0,
                    pointers[2], strides[2] ? 1 : 0, count, row_strides, rows))
      return;
  }
  if constexpr (simd_op_of<F>() == SimdOp::where) {
    using A = std::tuple_element_t<1, std::tuple<In...>>;
    if (count >= 16 && strides[0] == sizeof(Out) && strides[1] == sizeof(bool) &&
        (strides[2] == 0 || strides[2] == sizeof(A)) &&
        (strides[3] == 0 || strides[3] == sizeof(A)) && std::is_same_v<Out, A> &&
        simd_where(dtype_of<Out>, pointers[0], reinterpret_cast<const bool*>(pointers[1]),
                   pointers[2], strides[2] ? 1 : 0, pointers[3], strides[3] ? 1 : 0, count,
                   row_strides, rows))
      return;
  }
  const bool contiguous = strides[0] == sizeof(Out) && ((strides[I + 1] == sizeof(In)) && ...);
  for (int64_t r = 0; r < rows; ++r) {
    char* const row[] = {pointers[0] + r * row_strides[0],
                         (pointers[I + 1] + r * row_strides[I + 1])...};
    Out* out = reinterpret_cast<Out*>(row[0]);
    if (contiguous) {
      std::tuple<const In*...> in{reinterpret_cast<const In*>(row[I + 1])...};
      for (int64_t k = 0; k < count; ++k) out[k] = f(std::get<I>(in)[k]...);
      continue;
    }
    for (int64_t k = 0; k < count; ++k)
      *reinterpret_cast<Out*>(row[0] + k * strides[0]) =
          f(*reinterpret_cast<const In*>(row[I + 1] + k * strides[I + 1])...);
  }
}

}  // namespace engine_internal

// The engine's inputs, borrowed for the call: copying a Tensor costs a locked reference
// count increment and decrement, a large part of a small op.
template <size_t N>
using TensorRefs = std::array<const Tensor*, N>;

template <size_t N>
TensorRefs<N> refs_of(const std::array<Tensor, N>& tensors) {
  TensorRefs<N> refs{};
  for (size_t j = 0; j < N; ++j) refs[j] = &tensors[j];
  return refs;
}
template <size_t N>
std::array<Tensor, N> copies_of(const TensorRefs<N>& refs) {
  std::array<Tensor, N> tensors;
  for (size_t j = 0; j < N; ++j) tensors[j] = *refs[j];
  return tensors;
}

// out[...] = f(inputs[0][...], inputs[1][...], ...) over out's shape. out has dtype_of<Out>,
// input j dtype_of<In_j> and a shape broadcastable to out's. No overlap checks here.
template <class Out, class... In, class F>
void elementwise_into(const char* op, const Tensor& out, const TensorRefs<sizeof...(In)>& inputs,
                      F f, int64_t cost_per_element = 1) {
  // Fast path (most calls): a contiguous output, each input contiguous of the same shape or
  // a single broadcast element. One flat run, no loop plan.
  const TensorImpl& out_impl = impl_of(out, op);
  if (out_impl.device() != kCPU)
    return engine_internal::run_on_device<Out, In...>(op, out, copies_of(inputs), f);
  for (const Tensor* input : inputs) check_cpu(op, *input);
  bool flat = out_impl.contiguous;
  std::array<char*, max_operands> pointers{out_impl.data()};
  std::array<int64_t, max_operands> strides{static_cast<int64_t>(sizeof(Out))};
  for (size_t j = 0; j < sizeof...(In) && flat; ++j) {
    const TensorImpl& in = impl_of(*inputs[j], op);
    pointers[j + 1] = in.data();
    if (in.numel == 1 && in.sizes.size() <= out_impl.sizes.size()) {
      strides[j + 1] = 0;
    } else {
      flat = in.contiguous && IntList(in.sizes) == IntList(out_impl.sizes);
      strides[j + 1] = element_size(in.dtype);
    }
  }
  const std::array<int64_t, max_operands> no_rows{};
  if (flat && out_impl.numel * cost_per_element <= parallel_grain) {  // one run, no threads
    engine_internal::inner_run<Out, In...>(f, pointers.data(), strides.data(), out_impl.numel,
                                           no_rows.data(), 1, std::index_sequence_for<In...>{});
    return;
  }
  if (flat) {
    parallel_for(out_impl.numel, cost_per_element, [&](int64_t begin, int64_t end) {
      std::array<char*, max_operands> at = pointers;
      for (size_t j = 0; j <= sizeof...(In); ++j) at[j] += begin * strides[j];
      engine_internal::inner_run<Out, In...>(f, at.data(), strides.data(), end - begin,
                                             no_rows.data(), 1, std::index_sequence_for<In...>{});
    });
    return;
  }
  const StridedLoop loop = plan_loop(op, out, copies_of(inputs));
  run_loop(loop, cost_per_element,
           [&](char* const* pointers, const int64_t* strides, int64_t count,
               const int64_t* row_strides, int64_t rows) {
             engine_internal::inner_run<Out, In...>(f, pointers, strides, count, row_strides,
                                                    rows, std::index_sequence_for<In...>{});
           });
}
template <class Out, class... In, class F>
void elementwise_into(const char* op, const Tensor& out,
                      const std::array<Tensor, sizeof...(In)>& inputs, F f,
                      int64_t cost_per_element = 1) {
  elementwise_into<Out, In...>(op, out, refs_of(inputs), std::move(f), cost_per_element);
}

// A new tensor of dtype_of<Out> and the inputs' broadcast shape, computed by f. Each input is
// first converted to its In type when its dtype differs.
template <class Out, class... In, class F>
Tensor elementwise(const char* op, const TensorRefs<sizeof...(In)>& inputs, F f,
                   int64_t cost_per_element = 1) {
  constexpr Dtype in_dtypes[] = {dtype_of<In>...};
  bool on_cpu = true, convert = false;
  for (size_t j = 0; j < sizeof...(In); ++j) {
    const TensorImpl& in = impl_of(*inputs[j], op);
    on_cpu = on_cpu && in.device() == kCPU;
    convert = convert || in.dtype != in_dtypes[j];
  }
  const Device device = on_cpu ? kCPU : common_device(op, copies_of(inputs));
  if (convert) {
    std::array<Tensor, sizeof...(In)> converted;
    for (size_t j = 0; j < sizeof...(In); ++j)
      converted[j] = inputs[j]->dtype() == in_dtypes[j] ? *inputs[j] : inputs[j]->to(in_dtypes[j]);
    return elementwise<Out, In...>(op, refs_of(converted), std::move(f), cost_per_element);
  }
  Dims shape;
  for (size_t j = 0; j < sizeof...(In); ++j) {
    const IntList sizes = inputs[j]->unsafe_impl()->sizes;
    if (j == 0) shape.assign(sizes);
    else if (!(sizes == IntList(shape))) shape = broadcast_shapes(op, shape, sizes);
  }
  Tensor out = result_tensor(op, shape, dtype_of<Out>, device);
  elementwise_into<Out, In...>(op, out, inputs, std::move(f), cost_per_element);
  return out;
}
template <class Out, class... In, class F>
Tensor elementwise(const char* op, const std::array<Tensor, sizeof...(In)>& inputs, F f,
                   int64_t cost_per_element = 1) {
  return elementwise<Out, In...>(op, refs_of(inputs), std::move(f), cost_per_element);
}

}  // namespace vmap::detail
