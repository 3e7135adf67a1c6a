// Per-example scalar code compiled whole: what rewritten code calls for a region of
// per-example control flow over C++ scalars (Note [Fused control flow] in transform/fuse_scalar.cpp).
//
// Note [Scalar kernels]
// A per-example `while` over C++ scalars (Mandelbrot's escape loop) runs batched with masks
// (Note [Control masks]): every iteration is several runtime ops over every example, and
// the loop runs the largest trip count of them all. Where the tool sees that a region's
// values are all C++ scalars (per-example elements read with `.item<T>()`, numbers the same
// for every example, the region's own locals) and its result is one per-example value, it
// prints the region as written in a lambda whose parameters have the C++ types the code
// declares,
//
//   vb::at(vb::at(counts, y), x) = vb::fused_scalar([](float cr, float ci, int max_iter) {
//     float zr = 0.0f, zi = 0.0f;
//     int k = 0;
//     while (k < max_iter && zr * zr + zi * zi < 4.0f) { ... }
//     return k;
//   }, vb::at(re, x).item<float>(), vb::at(im, y).item<float>(), max_iter);
//
// and vb::fused_scalar calls it once per example, as the loop written per example does
// (ISPC's "uniform"/"varying" split, done per lane: each lane is independent, so no masks
// are needed inside): every active level at its full size, examples in chunks on OpenMP
// threads taken dynamically (each example runs its own number of iterations). Its operands
// are read as the parameters' C++ types (each per-example one converted once, before the
// loop, to the dtype that holds it, and read in place: no copy over the levels it does not
// vary over), the result is a per-example C++ scalar of the lambda's
// return type. Under a live vb::Where (the region inside a per-example `if`, or in a batched
// clone called under one) only the active examples run: an inactive one might loop forever.
// On a device the operands are copied to the CPU and the result back. Results are those of
// the code as written (the same C++ on the same types), to the bit.
//
// Note [Element reads]
// A region may read elements of tensors at indices it computes (a gather,
// `input[i][index[i][j].item<int64_t>()]`; a search loop, `x[i][k].item<float>() > t`). The
// tensor it subscripts (a variable, or an expression the region's locals do not reach) is a
// parameter of type vb::Elements: one example's view of it, its data pointer, dtype, sizes and
// strides as they are at run time (any strides: no copy, no contiguity assumed; a tensor the
// same for every example is one view, a per-example one each example's own). `e[k]` selects
// along its first dim as Tensor::operator[] does, the same bounds and the same vmap::Error for
// an index out of range (never a read outside the tensor); `e.item<T>()` reads the one element
// with the dtype the tensor has and converts it as Tensor::item<T>() does. A region whose value
// is such an element (`out[i][j] = input[i][k]`) returns the vb::Elements itself: the result
// has its dtype and its remaining dims, copied bit for bit.
//
// Note [Element stores]
// A region may store elements too: a plain inner loop over an output's row
// (`for (j ...) mask[i][j] = j >= i;`), a gather stored element by element, a dot product per
// output (`y[n][o] = acc`). The tool passes the example's own slot of the tensor (`vb::at(mask,
// i)`: the destination's leading subscripts are the induction variables of the vmap loops, so
// no two examples write one element; an `expand`ed output runs the loop as written, the
// overlap guard) as a vb::WritableElements: Elements whose `e[k] = v` writes as Tensor's
// `t[k] = v` does, a number converted (checked) as fill_ converts it, an element copied as
// copy_ does (bit for bit in one dtype), a slot of more than one element filled, the same
// bounds and vmap::Error for an index out of range. A float stored into a float tensor is a
// compare and a store, no dispatch. A kernel that stores and returns nothing is a statement,
// `vb::fused_scalar([](vb::WritableElements a, int64_t i) { for (...) a[j] = j >= i; },
// vb::at(mask, i), i);`. The region reads no other element of a tensor it stores into, and in
// it every element is read inside the kernel, where the code reads it (not before, as an
// operand), so every read sees the stores before it as in the loop as written. An error stops
// the call with the first failing example's (in loop order), as reads do; examples that ran
// in parallel may have stored theirs already (the batched ops would have stored every
// example's earlier statements too). The tool gives a storing kernel no device text: on a
// device its operands come to the CPU and the stored-into ones go back (store_back).
//
// Note [Lane kernels]
// A kernel that runs one example at a time is as slow as its longest chain of dependent
// operations: `total += d * d` over a row of 64 coordinates waits on each add in turn, and
// the compilers do not vectorise the loop over examples around a loop inside the kernel
// (GCC: "loop nest containing two or more consecutive inner loops"). ISPC's answer is to
// compile the body over a gang of program instances: values that differ per instance are
// "varying", one per lane; loop counters and sizes the same for every instance "uniform".
// Where a kernel's control flow is the same for every example (plain `for` loops over
// numbers that are, no `if`, `while`, `?:`, `&&` on per-example values; its value a C++
// scalar; no stores) and it reads elements (one of per-example numbers alone runs on SIMD
// lanes already: Note [Scalar kernels over rows of examples]), the tool prints its text a
// second time, its lane form (transform/fuse_lanes.cpp): `vb::over_lanes([](long a,
// vb::VaryingElements x, vb::Varying<int64_t> i, ...) { vb::Varying<float> total = 0.0f;
// for (int64_t k = 0; k < a; ++k) { ... } return vb::sqrt(total); })`, its parameters typed
// (a generic lambda would need `.template item<T>()`). Each local that differs per example
// is declared vb::Varying<T> (vmap/lanes.hpp): kLanes values of T, whose operators and
// <cmath> functions are the built-in ones lane by lane, so every lane computes what its
// example's scalar kernel computes, the same types and roundings (run_flat_in_exact_isa: no
// FMA contraction either; the lambda is `__attribute__((always_inline))`, as every function
// of lanes.hpp, so that all of it is that ISA's code). An operator that is one operation on
// every lane (`d * d` of two Varying<float>) is one vector of the compiler's vector
// extension: the compilers do not make vector code of loops over lanes that meet at
// branches. The tool selects each loop's element views that are the same on every iteration
// once, before the loop (Note [Views hoisted out of lane loops] in transform/fuse_lanes.cpp). vb::fused_scalar passes the lane form a block of
// kLanes examples along a row: a per-example number as a Varying of its parameter's type,
// an element operand as a VaryingElements (each lane's view), a number as itself. A lane
// whose element read would raise or convert (an index out of [0, size), an element of
// another dtype), or whose integer division would trap (by zero: an earlier example may
// raise first as written, and never divide), throws LaneMiss, and the block runs again one
// example at a time, which raises the loop's own error, or converts, as the scalar kernel
// does; so does a block under a live vb::Where, and the examples after a row's last whole
// block.
//
// Note [Scalar kernels on a device]
// Where the region's text means the same on a device (transform/fuse_detail.h's portableText:
// no macro, no call of the user's functions, no name of the user's file), the tool also
// emits the lambda's text for the device (vb::DeviceCode, the first argument). When an
// operand lives on a device, vb::fused_scalar then runs the kernel there as one launch, one
// thread per example, no host synchronisation (Note [Compiled kernels on the device] in
// runtime/cuda/backend.hpp): the program is kernel_device.hpp (how a thread finds its
// example's operands, by the same layout the CPU path plans), the lambda as written, and an
// entry that calls it with each parameter read as its C++ type. The C++ is the user's, so its
// meaning is the device compiler's (the same IEEE arithmetic, no fast math). An element read
// out of range or a conversion that overflows stops its example and marks the call; the call
// then runs again on the CPU, which throws the error the loop as written raises, with its
// message (so only a kernel that reads elements waits for the device). Without device code (a
// macro, a helper, a kernel returning elements, more levels, dims or parameters than
// kernel_device.hpp holds), the operands are copied to the CPU, as before.
// VMAP_CHECK_DEVICE_KERNELS=1 compiles each kernel's device program with NVRTC (to PTX, no
// device needed) at its first call on the CPU too: how CI checks every kernel the tool emits.
#pragma once

#include <vmap/batched.hpp>
#include <vmap/fused_isa.hpp>
#include <vmap/kernel_device.hpp>
#include <vmap/lanes.hpp>
#include <vmap/scalar_elements.hpp>

#include <algorithm>

#include <array>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace vmap::batched {

namespace detail {

// An operand of a scalar kernel, on the CPU, expanded over every active level (a level it
// does not vary over has stride 0), no copy: a per-example C++ scalar (no dims of its own, in
// the dtype that holds its parameter) or a tensor read element by element (Note [Element
// reads]).
struct ElementOperand {
  Tensor held;
  Dtype dtype = kFloat32;              // held's
  const char* base = nullptr;          // the first example's first element
  std::vector<int64_t> level_strides;  // in bytes, one per active level
  std::vector<int64_t> sizes;          // the dims of one example
  std::vector<int64_t> strides;        // theirs, in bytes
  // A per-example number that is a loop's index (Level::index()): the level, else -1, and
  // the index's first value; the kernel computes it (Note [Loop indices in scalar kernels]).
  int64_t index_level = -1;
  int64_t index_start = 0;
};

// The per-example operands of a scalar kernel over every active level.
struct ScalarKernelLayout {
  int64_t levels = 0;
  std::vector<int64_t> sizes;  // every active level's size
  int64_t count = 1;           // their product
  std::vector<ElementOperand> operands;  // per-example C++ scalars
  std::vector<ElementOperand> elements;  // tensors read element by element
  Tensor active;  // bool [sizes], the live vb::Where's mask; undefined when none is live
  Device device = kCPU;  // where the operands live, and the result goes
};
ScalarKernelLayout plan_scalar_kernel(const std::vector<Value>& operands,
                                      const std::vector<Dtype>& dtypes,
                                      const std::vector<Value>& elements,
                                      bool on_the_device = false);

// An element operand's lane-major copy (Note [Lane-major copies]), where the kernel's lane
// form may read it so: one tensor for every example, whose dim 0 is strided, and no more
// elements than `count`, the examples; else empty (data null).
struct LaneMajorCopy {
  Tensor held;
  std::vector<int64_t> strides;  // in bytes, of the operand's dims
  LaneMajor view;                 // of the two
};
LaneMajorCopy lane_major_copy(const ElementOperand& e, int64_t count);

// A kernel's device program: kernel_device.hpp, then an entry that runs `lambda` on each
// example, its parameters read by `reads`, its result converted to `held` (Note [Scalar
// kernels on a device]).
std::string device_program(DeviceCode code, const char* held, const std::string& reads);
// Checks the program compiles (VMAP_CHECK_DEVICE_KERNELS), once per call site.
bool checking_device_kernels();
void check_device_program(const std::string& program);
// Whether an operand lives on a device.
bool on_a_device(const std::vector<Value>& values, const std::vector<Value>& elements);
// Whether layout fits kernel_device.hpp's Args.
bool fits_device_args(const ScalarKernelLayout& layout, std::size_t parameters);
// Runs `program` over the layout (planned on the device) into a new [sizes] tensor of `held`
// on the device; numbers[i] holds parameter i's bytes where it is a number; `kinds[i]` is 0
// (number), 1 (operand), 2 (elements). Returns false where an example stopped (the CPU path
// then throws its error) or the device compiler refused the program (the CPU path runs it).
bool run_on_device(const ScalarKernelLayout& layout, const std::string& program,
                   void (*host)(const void*), const std::vector<int>& kinds,
                   const std::vector<std::array<unsigned char, 8>>& numbers, Dtype held,
                   bool reads_elements, Tensor& result);


// While one lives, parallel_chunks runs its chunks in order on the calling thread (Note
// [Examples in order]).
class ExamplesInOrder {
 public:
  ExamplesInOrder();
  ~ExamplesInOrder();
  ExamplesInOrder(const ExamplesInOrder&) = delete;
  ExamplesInOrder& operator=(const ExamplesInOrder&) = delete;

 private:
  bool before_;
};

// Calls body(begin, end) over [0, count) in small chunks that OpenMP threads take as they
// finish the one before (the examples' costs differ).
// `chunk` examples at a time (Note [Scalar kernels over rows of examples]).
void parallel_chunks(int64_t count, const std::function<void(int64_t, int64_t)>& body,
                     int64_t chunk = 64);
// `result` (of the layout's sizes, on the CPU) as a per-example C++ scalar, or, where the
// kernel returns elements of a tensor, as a per-example tensor.
Value scalar_kernel_value(const ScalarKernelLayout& layout, const Tensor& result,
                          bool cpp_scalar = true);
// The result of a kernel that returns vb::Elements: [layout sizes..., first's dims...] of
// first's dtype (Note [Element reads]), with first, example `example`'s, copied into it.
Tensor element_result(const ScalarKernelLayout& layout, const Elements& first, int64_t example);
void store_elements(const ScalarKernelLayout& layout, const Elements& from, const Tensor& result,
                    int64_t example);
// After a kernel that stores elements ran on the CPU: each stored-into operand (`written`,
// one per element operand) that lives on a device gets its CPU copy back.
void store_back(const ScalarKernelLayout& layout, const std::vector<Value>& elements,
                const std::vector<bool>& written);
// A per-example C++ scalar of `dtype` over the layout's levels, computed by fill(out) into a
// contiguous [layout sizes] `out` when first needed (Note [Scalar kernels over rows of
// examples]).
Value scalar_kernel_deferred(std::shared_ptr<const ScalarKernelLayout> layout, Dtype dtype,
                             std::function<void(void* out)> fill, std::function<double()> sum);
// The sum of body(begin, end) over chunks of [0, count) taken by threads, added in the chunks'
// order (the same total on any number of threads).
double sum_chunks(int64_t count, const std::function<double(int64_t, int64_t)>& body);
// Before a kernel that stores elements: every pending value reading a stored-into operand
// (`written`, one per element operand) is computed.
void settle_stores(const ScalarKernelLayout& layout, const std::vector<bool>& written);
// A parameter read (vb::Elements) or written (vb::WritableElements) element by element.
template <class P>
inline constexpr bool kElementsParameter = std::is_base_of_v<Elements, P>;
template <class Parameters>
inline constexpr bool kStores = false;
template <class... P>
inline constexpr bool kStores<std::tuple<P...>> = (std::is_same_v<P, WritableElements> || ...);

// Example `p`'s position over the active levels, stepped a run of the innermost level at a
// time (Note [Scalar kernels over rows of examples]).
class ExampleCursor {
 public:
  ExampleCursor(const ScalarKernelLayout& layout, int64_t p)
      : sizes_(layout.sizes), index_(layout.sizes.size()) {
    for (std::size_t l = index_.size(); l-- > 0;) {
      index_[l] = p % sizes_[l];
      p /= sizes_[l];
    }
  }
  // The examples from here to the end of this row of the innermost level.
  int64_t row_left() const { return index_.empty() ? 1 : sizes_.back() - index_.back(); }
  // Steps `n` examples, at most row_left().
  void advance(int64_t n) {
    if (index_.empty() || (index_.back() += n) < sizes_.back()) return;
    index_.back() = 0;
    for (std::size_t l = index_.size() - 1; l-- > 0;) {
      if (++index_[l] < sizes_[l]) return;
      index_[l] = 0;
    }
  }
  // This example's first element of `e`.
  const char* at(const ElementOperand& e) const {
    const char* data = e.base;
    for (std::size_t l = 0; l < index_.size(); ++l) data += index_[l] * e.level_strides[l];
    return data;
  }
  // This example's position along `level`.
  int64_t position(int64_t level) const { return index_[static_cast<std::size_t>(level)]; }
  // The bytes from one example's first element of `e` to the next's along the row.
  static int64_t row_step(const ElementOperand& e) {
    return e.level_strides.empty() ? 0 : e.level_strides.back();
  }

 private:
  const std::vector<int64_t>& sizes_;
  std::vector<int64_t> index_;
};

// Calls row(at, p, n) for each run [p, p + n) of examples in [begin, end) along one row of
// the innermost level, `at` at its first.
template <class Row>
void for_each_row(const ScalarKernelLayout& layout, int64_t begin, int64_t end, const Row& row) {
  ExampleCursor at(layout, begin);
  for (int64_t p = begin; p < end;) {
    const int64_t n = std::min(end - p, at.row_left());
    row(at, p, n);
    at.advance(n);
    p += n;
  }
}

template <class Call>
struct KernelSignature;
template <class Lambda, class R, class... P>
struct KernelSignature<R (Lambda::*)(P...) const> {
  using Result = std::remove_cvref_t<R>;
  using Parameters = std::tuple<std::remove_cvref_t<P>...>;
};

}  // namespace detail

namespace detail {

// Parameter I's reader in the device program and its kind (0 a number, 1 a per-example
// operand, 2 elements); null where its type has no device spelling.
template <std::size_t I, class P, class Operand>
std::string device_read(int& kind) {
  if constexpr (std::is_same_v<P, Elements>) {
    kind = 2;
    return "vmap_kernel::FromElements<" + std::to_string(I) + ">";
  } else if constexpr (vmap_kernel::type_name<P>() == nullptr) {
    return {};
  } else if constexpr (std::is_same_v<Operand, Value>) {
    kind = 1;
    return "vmap_kernel::FromOperand<" + std::to_string(I) + ", " +
           vmap_kernel::type_name<HeldAs<P>>() + ", " + vmap_kernel::type_name<P>() + ">";
  } else {
    kind = 0;
    return "vmap_kernel::FromNumber<" + std::to_string(I) + ", " + vmap_kernel::type_name<P>() + ">";
  }
}

// A tensor read element by element in the host form: the host's Elements (its errors thrown
// as on the CPU path, the first example's first: the host form runs them in order).
template <int I>
struct HostElements {
  static Elements read(const vmap_kernel::Args& args, const vmap_kernel::Example& at) {
    const vmap_kernel::Operand& operand = args.operands[I];
    return Elements(at.at(operand), static_cast<Dtype>(operand.dtype), operand.dims,
                    operand.sizes, operand.strides);
  }
};

// The host form of a device program (what a backend without a compiler runs): the same
// readers over the same arguments. A lambda with no captures is default-constructible.
template <class Kernel, class Held, class... Read>
void host_form(const void* arguments) {
  const auto& args = *static_cast<const vmap_kernel::Args*>(arguments);
  for (int64_t p = 0; p < args.count; ++p) vmap_kernel::run_example<Held, Read...>(args, p, Kernel{});
}
template <class Kernel, class Held, class Parameters, class Operands, std::size_t... I>
constexpr auto host_form_of(std::index_sequence<I...>) {
  return &host_form<
      Kernel, Held,
      std::conditional_t<
          std::is_same_v<std::tuple_element_t<I, Parameters>, Elements>, HostElements<I>,
          std::conditional_t<std::is_same_v<std::tuple_element_t<I, Operands>, Value>,
                             vmap_kernel::FromOperand<I, HeldAs<std::tuple_element_t<I, Parameters>>,
                                                      std::tuple_element_t<I, Parameters>>,
                             vmap_kernel::FromNumber<I, std::tuple_element_t<I, Parameters>>>>...>;
}

// The kernel on the device where its operands are (Note [Scalar kernels on a device]), or
// nothing: none is on a device, or the kernel has no device form.
template <class Kernel, class R, class Parameters, class Operands>
std::optional<Value> device_kernel(DeviceCode code, const Operands& operands,
                                   const std::vector<Value>& values,
                                   const std::vector<Dtype>& dtypes,
                                   const std::vector<Value>& elements) {
  constexpr std::size_t kCount = std::tuple_size_v<Parameters>;
  using Held = HeldAs<R>;
  std::vector<int> kinds(kCount, 0);
  std::vector<std::array<unsigned char, 8>> numbers(kCount);
  std::string reads;
  bool spelled = vmap_kernel::type_name<Held>() != nullptr;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          using P = std::tuple_element_t<I, Parameters>;
          using Operand = std::tuple_element_t<I, Operands>;
          const std::string read = device_read<I, P, Operand>(kinds[I]);
          spelled = spelled && !read.empty();
          reads += std::string(I ? ", " : "") + read;
          if constexpr (!std::is_same_v<Operand, Value> && !std::is_same_v<P, Elements>) {
            const P number = static_cast<P>(std::get<I>(operands));
            std::memcpy(numbers[I].data(), &number, sizeof number);
          }
        }(),
        ...);
  }(std::make_index_sequence<kCount>{});
  if (!spelled) return std::nullopt;
  if (!on_a_device(values, elements)) {
    if (checking_device_kernels()) {
      static std::once_flag checked;  // one per call site: each has its own Kernel type
      std::call_once(checked, [&] {
        check_device_program(device_program(code, vmap_kernel::type_name<Held>(), reads));
      });
    }
    return std::nullopt;
  }
  const ScalarKernelLayout layout = plan_scalar_kernel(values, dtypes, elements, true);
  if (!fits_device_args(layout, kCount)) return std::nullopt;
  static const std::string program = device_program(code, vmap_kernel::type_name<Held>(), reads);
  Tensor result;
  if (!run_on_device(layout, program,
                     host_form_of<Kernel, Held, Parameters, Operands>(std::make_index_sequence<kCount>{}),
                     kinds, numbers, cpp_dtype<R>(), !elements.empty(), result))
    return std::nullopt;  // an example stopped: the CPU path raises its error
  return scalar_kernel_value(layout, result);
}

// Note [Scalar kernels over rows of examples]
// The examples a thread takes are walked a row of the innermost level at a time: each
// per-example parameter's address is found once per row (ExampleCursor::at, a sum over the
// levels) and stepped by its stride along the row, so reading an example's operands is a
// load each. A kernel that reads no element and stores none (per-example numbers in, one
// number out: a mask, a cast, `x * x` five times, an escape loop) runs a row as one
// `omp simd` loop in the compiled kernels' vector ISA without FMA (Note [Vector ISA of
// compiled kernels]; run_in_exact_isa: each lane rounds as the loop as written), an example
// a SIMD lane, ISPC's program instances, in blocks whose per-example numbers are contiguous
// (copied so where the row broadcasts or strides them: plain vector loads, no gathers),
// where the compiler can vectorise the body (straight-line code and `?:`; a loop whose trip count differs per
// example stays one example at a time). Such a kernel cannot raise an error, so its result
// is a whole pending node (Note [Deferred results] in src/batched/batched_fused.hpp): a
// store computes it straight into the slot, with no [examples] temporary copied after; any
// other use computes it into a new tensor first. A kernel with element reads may raise, so
// it runs where it is written (its error raised by its statement, in the examples' order).
//
// Note [Loop indices in scalar kernels]
// A kernel of the loop's own indices, `[](int64_t j, int64_t i) { return !(j < i); }`, would
// spend its time loading them: two 8-byte numbers per example read from memory, for one
// compare (a 1024x1024 mask: 16 MB read to write 1 MB). The plain C++ loop computes them.
// So does the kernel: plan_scalar_kernel marks an operand of an integer type that is a
// loop's index (Level::index(), which the tool passes as is: `vb::fused_scalar(..., j, i)`)
// with its level and first value, and where every per-example number of an integer type is
// one, a row's block computes each lane's index as the row's first value plus the lane's
// step along the row (the row's own level's index), or as that first value (an outer
// level's), converted to the parameter's type as `.to(dtype)` converts it. The values are
// those the loaded ones would be; a kernel with another integer operand, or with two that
// count along the row (a copy of the index, `int64_t jj = j;`, read beside it), loads them
// all.
//
// Note [Sums of scalar kernels]
// `total += x[i].item<float>() * y[j].item<float>()` into a C++ double: the value is a
// scalar kernel's node, and accumulate (batched_control.cpp) takes its sum from the kernel
// (Pending::sum): each example's value converted to double, as `+=` converts it, summed on
// SIMD lanes (reassociated, as SPEC allows a reduction), chunks added in order; no
// [examples] tensor of values exists.
// A scalar kernel without a lane form.
struct NoLanes {};

template <class Kernel, class Parameters, class Operands, class Lanes = NoLanes>
class ScalarRunner {
  static constexpr std::size_t kCount = std::tuple_size_v<Parameters>;
  static constexpr bool kHasLanes = !std::is_same_v<Lanes, NoLanes>;
  using Result = typename KernelSignature<decltype(&Kernel::operator())>::Result;
  template <std::size_t J>
  using P = std::tuple_element_t<J, Parameters>;
  template <std::size_t J>
  static constexpr bool kOperand = std::is_same_v<std::tuple_element_t<J, Operands>, Value>;
  // A per-example number of an integer type other than bool, which may be a loop's index.
  template <std::size_t J>
  static constexpr bool kIndexType =
      kOperand<J> && std::is_integral_v<P<J>> && !std::is_same_v<P<J>, bool>;

 public:
  // Whether the kernel reads per-example numbers and numbers only (no element).
  static constexpr bool kNumbersOnly = []<std::size_t... I>(std::index_sequence<I...>) {
    return (!kElementsParameter<P<I>> && ...);
  }(std::make_index_sequence<kCount>{});
  // The examples a thread takes at a time: rows of SIMD lanes, or a few examples of one
  // whose costs may differ widely (an escape loop's corner of the set).
  static constexpr int64_t kChunk = kNumbersOnly ? 2048 : 64;

  // Each parameter's address at a row's first example, and its step along the row, in bytes
  // (none for a number).
  struct Row {
    std::array<const char*, kCount> at{};
    std::array<int64_t, kCount> step{};
    // A loop's index (Note [Loop indices in scalar kernels]): its value at the row's first
    // example.
    std::array<int64_t, kCount> first{};
  };

  ScalarRunner(const Kernel& kernel, const Operands& operands,
               std::shared_ptr<const ScalarKernelLayout> layout, const Lanes& lanes = {})
      : kernel_(kernel), operands_(operands), layout_(std::move(layout)), lanes_(lanes),
        vector_isa_(kFusedIsa == VectorIsa::users || cpu_runs(kFusedIsa)) {
    std::size_t next = 0, next_element = 0;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (
          [&] {
            if constexpr (kElementsParameter<P<I>>) {
              operand_[I] = &layout_->elements[next_element++];
              if constexpr (kHasLanes && std::is_same_v<P<I>, Elements>)
                lane_major_[I] = lane_major_copy(*operand_[I], layout_->count);
            } else if constexpr (kOperand<I>) {
              operand_[I] = &layout_->operands[next++];
              if constexpr (kIndexType<I>) {
                indices_ += operand_[I]->index_level >= 0;
                ++integers_;
                if (operand_[I]->index_level == layout_->levels - 1) {
                  along_ = I;
                  ++alongs_;
                }
              }
            }
          }(),
          ...);
    }(std::make_index_sequence<kCount>{});
  }

  Row row(const ExampleCursor& at) const {
    Row row;
    for (std::size_t n = 0; n < kCount; ++n)
      if (operand_[n] != nullptr) {
        row.at[n] = at.at(*operand_[n]);
        row.step[n] = ExampleCursor::row_step(*operand_[n]);
        if (const int64_t level = operand_[n]->index_level; level >= 0)
          row.first[n] = operand_[n]->index_start + at.position(level);
      }
    return row;
  }

  // The kernel on example k of `row`; kUnit: each per-example number's step is its size
  // (a block from contiguous()); kIndices other than kLoaded: each integer one is a loop's
  // index, computed, parameter kIndices (if any) the one counting along the row.
  static constexpr int kLoaded = -2;
  template <bool kUnit = false, int kIndices = kLoaded>
  VMAP_FUSED_LOOP decltype(auto) run(const Row& row, int64_t k) const {
    return run_at<kUnit, kIndices>(row, k, std::make_index_sequence<kCount>{});
  }

  // The sum in double of the kernel's results on examples [0, n) of `row` (no mask).
  double sum_row(const Row& row, int64_t n) const {
    double total = 0;
    if constexpr (kNumbersOnly) {
      // Independent partial sums (GCC vectorises no `omp simd reduction` in this inlined
      // lambda), eight vectors of them, so no add waits on the one before (as sum_run's
      // lanes in vmap/fused.hpp), added up once a row.
      constexpr int64_t kLanes = 32;
      std::array<double, kLanes> lanes{};
      in_blocks(row, n, [&](const Row& block, int64_t, int64_t m, auto indices) VMAP_FUSED_LOOP {
        constexpr int kIndices = decltype(indices)::value;
        std::array<double, kLanes> local = lanes;  // in registers, not through the capture
        int64_t k = 0;
        for (; k + kLanes <= m; k += kLanes)
          for (int64_t l = 0; l < kLanes; ++l)
            local[l] += static_cast<double>(run<true, kIndices>(block, k + l));
        for (; k < m; ++k) local[0] += static_cast<double>(run<true, kIndices>(block, k));
        lanes = local;
      });
      for (const double lane : lanes) total += lane;
    } else {
      for (int64_t k = 0; k < n; ++k) total += static_cast<double>(run(row, k));
    }
    return total;
  }

  // out[k] = the kernel's result on example k of `row`, k < n, an inactive one (active[k]
  // false) Held{}.
  template <class Held>
  void compute_row(const Row& row, int64_t n, Held* out, const bool* active) const {
    // (A kernel of numbers alone has its blocks below: the tool gives it no lane form.)
    if constexpr (kHasLanes && !kNumbersOnly)
      if (active == nullptr) return lanes_row(row, n, out);
    if (active != nullptr) {
      for (int64_t k = 0; k < n; ++k) out[k] = active[k] ? static_cast<Held>(run(row, k)) : Held{};
    } else if constexpr (kNumbersOnly) {
      in_blocks(row, n, [&](const Row& block, int64_t b, int64_t m, auto indices) VMAP_FUSED_LOOP {
        constexpr int kIndices = decltype(indices)::value;
        Held* const into = out + b;
#pragma omp simd
        for (int64_t k = 0; k < m; ++k)
          into[k] = static_cast<Held>(run<true, kIndices>(block, k));
      });
    } else {
      for (int64_t k = 0; k < n; ++k) out[k] = static_cast<Held>(run(row, k));
    }
  }

 private:
  // Calls loop(block, b, m, indices) on examples [b, b + m) of `row`, blocks of at most
  // kBlock, in the lanes' ISA, each per-example number contiguous in the block: where it is
  // already (its step its size), else copied into a scratch block (a number the row
  // broadcasts repeated, once for the row: every block reads the same; a strided one
  // gathered), so the lanes load it as plain vectors. Where every integer one is a loop's
  // index, `indices` is std::true_type and the lanes compute them instead (Note [Loop
  // indices in scalar kernels]).
  static constexpr int64_t kBlock = 256;
  template <class Loop>
  void in_blocks(const Row& row, int64_t n, const Loop& loop) const {
    // (Two copies of the row's index, `int64_t jj = j;` read beside j: loaded.)
    if (integers_ == 0 || indices_ != integers_ || alongs_ > 1)
      return in_blocks(row, n, loop, std::integral_constant<int, kLoaded>{});
    if (along_ < 0) return in_blocks(row, n, loop, std::integral_constant<int, -1>{});
    // One loop per parameter that may count along the row: which one does is known here.
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (
          [&] {
            if constexpr (kIndexType<I>)
              if (along_ == static_cast<int>(I))
                in_blocks(row, n, loop, std::integral_constant<int, static_cast<int>(I)>{});
          }(),
          ...);
    }(std::make_index_sequence<kCount>{});
  }
  template <class Loop, class Indices>
  void in_blocks(const Row& row, int64_t n, const Loop& loop, Indices indices) const {
    alignas(64) std::array<std::array<unsigned char, kBlock * 8>, kCount> scratch;
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      Row block = row;
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (
            [&] {
              if constexpr (Indices::value != kLoaded && kIndexType<I>) {
                block.first[I] = row.first[I] + (Indices::value == static_cast<int>(I) ? b : 0);
              } else if constexpr (kOperand<I>) {
                constexpr int64_t kSize = sizeof(HeldAs<P<I>>);
                using Held = HeldAs<P<I>>;
                block.at[I] = row.at[I] + b * row.step[I];
                if (row.step[I] != kSize) {
                  Held* const to = reinterpret_cast<Held*>(scratch[I].data());
                  if (row.step[I] != 0) {
                    for (int64_t k = 0; k < m; ++k)
                      std::memcpy(to + k, block.at[I] + k * row.step[I], kSize);
                  } else if (b == 0) {  // the later blocks are no longer than the first
                    Held value;
                    std::memcpy(&value, block.at[I], kSize);
                    std::fill_n(to, m, value);
                  }
                  block.at[I] = reinterpret_cast<const char*>(scratch[I].data());
                }
                block.step[I] = kSize;
              }
            }(),
            ...);
      }(std::make_index_sequence<kCount>{});
      const auto run_block = [&]() VMAP_FUSED_LOOP { loop(block, b, m, indices); };
      if (vector_isa_)
        run_in_exact_isa(run_block);
      else
        run_block();
    }
  }

  template <bool kUnit, int kIndices, std::size_t... I>
  VMAP_FUSED_LOOP decltype(auto) run_at(const Row& row, int64_t k,
                                        std::index_sequence<I...>) const {
    return kernel_(argument<kUnit, I, kIndices>(row, k)...);
  }
  // Parameter J of example k: its elements, its per-example number read as the dtype that
  // holds it and converted to its type (a loop's index computed, under kIndices), or the
  // number passed.
  template <bool kUnit, std::size_t J, int kIndices = kLoaded>
  VMAP_FUSED_LOOP P<J> argument(const Row& row, int64_t k) const {
    if constexpr (kIndices != kLoaded && kIndexType<J>)
      return static_cast<P<J>>(kIndices == static_cast<int>(J) ? row.first[J] + k
                                                                : row.first[J]);
    if constexpr (kElementsParameter<P<J>>) {
      const ElementOperand& e = *operand_[J];
      return P<J>(Elements(row.at[J] + k * row.step[J], e.dtype,
                           static_cast<int64_t>(e.sizes.size()), e.sizes.data(),
                           e.strides.data()));
    } else if constexpr (kOperand<J>) {
      HeldAs<P<J>> held;
      const int64_t step = kUnit ? static_cast<int64_t>(sizeof held) : row.step[J];
      std::memcpy(&held, row.at[J] + k * step, sizeof held);
      return static_cast<P<J>>(held);
    } else {
      return static_cast<P<J>>(std::get<J>(operands_));
    }
  }

  // out[k] = the kernel's result on example k of `row`, k < n, by its lane form a block of
  // kLanes examples at a time (Note [Lane kernels]); a block where a lane missed, and the
  // examples after the last whole block, one example at a time.
  template <class Held>
  void lanes_row(const Row& row, int64_t n, Held* out) const {
    int64_t k = 0;
    for (; k + kLanes <= n; k += kLanes) {
      bool missed = false;
      const auto block = [&]() VMAP_FUSED_LOOP {
        try {
          const auto values = run_lanes(row, k, std::make_index_sequence<kCount>{});
          for (int l = 0; l < kLanes; ++l)
            out[k + l] = static_cast<Held>(static_cast<Result>(lane_of(values, l)));
        } catch (const LaneMiss&) {
          missed = true;
        }
      };
      if (vector_isa_)
        run_flat_in_exact_isa(block);
      else
        block();
      if (missed)
        for (int l = 0; l < kLanes; ++l) out[k + l] = static_cast<Held>(run(row, k + l));
    }
    for (; k < n; ++k) out[k] = static_cast<Held>(run(row, k));
  }
  template <std::size_t... I>
  VMAP_FUSED_LOOP auto run_lanes(const Row& row, int64_t k, std::index_sequence<I...>) const {
    return lanes_.kernel(lane_argument<I>(row, k)...);
  }
  // Note [Lane-major copies]
  // A kernel reading `y[j][k]` with j the lanes' own (consecutive) indices reads a column of
  // y, one element per lane a row of y apart: a gather, where the plain C++ loop a
  // performance engineer writes transposes y once and loads vectors. So does the engine: an
  // element operand that every example reads whole (no level strides), whose dim 0 is not
  // adjacent elements, gets a copy with dim 0 innermost (lane_major_copy), and where a lane
  // form selects its dim 0 by consecutive indices, the view is into the copy, where the
  // lanes' elements are adjacent (one vector load). The copy is made only where the tensor
  // has no more elements than the call has examples, so it costs at most one element copied
  // per example, however little of it the kernel reads; the kernel does not store (a lane
  // form never does), so the copy stays what the tensor holds.
  // Parameter J of the block of examples [k, k + kLanes) of `row`: each lane's elements (one
  // address, each lane's offset, its lane-major copy), each lane's per-example number as
  // argument() reads it, or the number passed, the same for every lane.
  template <std::size_t J>
  VMAP_FUSED_LOOP auto lane_argument(const Row& row, int64_t k) const {
    if constexpr (kElementsParameter<P<J>>) {
      const ElementOperand& e = *operand_[J];
      Varying<int64_t> offsets;
      for (int l = 0; l < kLanes; ++l) offsets.lane[l] = l * row.step[J];
      return VaryingElements(row.at[J] + k * row.step[J], offsets, row.step[J], e.dtype,
                             static_cast<int64_t>(e.sizes.size()), e.sizes.data(),
                             e.strides.data(), lane_major_[J].view);
    } else if constexpr (kOperand<J>) {
      Varying<P<J>> values;
      for (int l = 0; l < kLanes; ++l) values.lane[l] = argument<false, J>(row, k + l);
      return values;
    } else {
      return argument<false, J>(row, k);
    }
  }

  Kernel kernel_;
  Operands operands_;
  std::shared_ptr<const ScalarKernelLayout> layout_;
  Lanes lanes_;
  std::array<const ElementOperand*, kCount> operand_{};  // null: a number
  std::array<LaneMajorCopy, kCount> lane_major_;          // Note [Lane-major copies]
  // The per-example numbers of an integer type, and how many of them are a loop's index.
  int integers_ = 0;
  int indices_ = 0;
  int along_ = -1;  // the index counting along a row, if any
  int alongs_ = 0;  // how many do
  bool vector_isa_;  // this CPU runs kFusedIsa
};

// The per-example scalar code `kernel` (a lambda with typed parameters) on `args`: Values
// (per-example C++ scalars, or tensors read element by element where the parameter is a
// vb::Elements) and numbers, one per parameter; `device_lambda` its text, or null. Note
// [Scalar kernels], Note [Element reads], Note [Scalar kernels on a device].
template <class Kernel, class Lanes, class... Args>
Value scalar_kernel(DeviceCode device, const Kernel& kernel, const Lanes& lanes,
                    const Args&... args) {
  const profile::detail::OpScope profiled("fused scalar");
  using Signature = detail::KernelSignature<decltype(&Kernel::operator())>;
  using Parameters = typename Signature::Parameters;
  using R = typename Signature::Result;
  static_assert(std::tuple_size_v<Parameters> == sizeof...(Args),
                "vb::fused_scalar: one argument per parameter of the kernel");
  // A number (an enumerator too: C++ reads it as its integer) is passed as it is.
  using Operands = std::tuple<
      std::conditional_t<std::is_arithmetic_v<Args> || std::is_enum_v<Args>, Args, Value>...>;
  const Operands operands(args...);
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    std::vector<Value> values, elements;
    std::vector<Dtype> dtypes;
    std::vector<bool> written;
    (
        [&] {
          using P = std::tuple_element_t<I, Parameters>;
          if constexpr (detail::kElementsParameter<P>) {
            elements.push_back(std::get<I>(operands));
            written.push_back(std::is_same_v<P, WritableElements>);
          } else if constexpr (std::is_same_v<std::tuple_element_t<I, Operands>, Value>) {
            values.push_back(std::get<I>(operands));
            dtypes.push_back(detail::cpp_dtype<std::tuple_element_t<I, Parameters>>());
          }
        }(),
        ...);
    // A lambda with captures (never the tool's) has no host form: it runs on the CPU. So does
    // one that stores elements: the tool gives it no device text, and its operands on a
    // device are copied to the CPU and the stored ones back.
    if constexpr (!std::is_same_v<R, Elements> && !detail::kStores<Parameters> &&
                  std::is_default_constructible_v<Kernel>)
      if (device.lambda) {
        if (std::optional<Value> on_device = device_kernel<Kernel, R, Parameters, Operands>(
                device, operands, values, dtypes, elements))
          return *on_device;
      }
    auto layout = std::make_shared<const detail::ScalarKernelLayout>(
        detail::plan_scalar_kernel(values, dtypes, elements));
    using Runner = ScalarRunner<Kernel, Parameters, Operands, Lanes>;
    const bool* active = layout->active.defined() ? layout->active.template data_ptr<bool>() : nullptr;
    if constexpr (std::is_same_v<R, Elements>) {
      const Runner runner(kernel, operands, layout, lanes);
      // The result's dtype and dims are those of the elements returned: the first active
      // example's, which every other's share (the same tensor's, at the same depth).
      int64_t first = 0;
      while (first < layout->count && active && !active[first]) ++first;
      if (first == layout->count)
        return detail::scalar_kernel_value(*layout, vmap::zeros(layout->sizes), false);
      const Elements first_result = runner.run(runner.row(ExampleCursor(*layout, first)), 0);
      const Tensor result = detail::element_result(*layout, first_result, first);
      char* const out = static_cast<char*>(result.raw_data());
      const Dtype dtype = first_result.dtype();
      const auto store = [&](const Elements& from, int64_t p) {
        // One element of the result's dtype (a gather): a copy of its bytes, inline.
        switch (from.dim() == 0 && from.dtype() == dtype ? vmap::detail::element_size(dtype) : 0) {
          case 1: std::memcpy(out + p, from.data(), 1); return;
          case 4: std::memcpy(out + p * 4, from.data(), 4); return;
          case 8: std::memcpy(out + p * 8, from.data(), 8); return;
          default: detail::store_elements(*layout, from, result, p);
        }
      };
      detail::parallel_chunks(layout->count - first - 1, [&](int64_t begin, int64_t end) {
        for_each_row(*layout, first + 1 + begin, first + 1 + end,
                     [&](const ExampleCursor& at, int64_t p, int64_t n) {
                       const typename Runner::Row row = runner.row(at);
                       for (int64_t k = 0; k < n; ++k)
                         if (!active || active[p + k]) store(runner.run(row, k), p + k);
                     });
      });
      detail::store_back(*layout, elements, written);
      return detail::scalar_kernel_value(*layout, result, false);
    } else if constexpr (std::is_void_v<R>) {
      // A kernel that stores elements (Note [Element stores]): each example writes its own
      // slot, in place, after any pending value that reads the slot is computed.
      detail::settle_stores(*layout, written);
      const Runner runner(kernel, operands, layout, lanes);
      detail::parallel_chunks(layout->count, [&](int64_t begin, int64_t end) {
        for_each_row(*layout, begin, end, [&](const ExampleCursor& at, int64_t p, int64_t n) {
          const typename Runner::Row row = runner.row(at);
          for (int64_t k = 0; k < n; ++k)
            if (!active || active[p + k]) runner.run(row, k);
        });
      });
      detail::store_back(*layout, elements, written);
      return Value();
    } else {
      using Held = HeldAs<R>;
      // Computed where the value is first needed, into the slot a store gives it (Note
      // [Scalar kernels over rows of examples]); one that reads elements (it may raise), or a
      // lambda with captures (never the tool's), now.
      auto runner = std::make_shared<const Runner>(kernel, operands, layout, lanes);
      auto fill = [runner, layout, active](void* into) {
        Held* const out = static_cast<Held*>(into);
        detail::parallel_chunks(
            layout->count,
            [&](int64_t begin, int64_t end) {
              for_each_row(*layout, begin, end,
                           [&](const ExampleCursor& at, int64_t p, int64_t n) {
                             runner->template compute_row<Held>(runner->row(at), n, out + p,
                                                                active ? active + p : nullptr);
                           });
            },
            Runner::kChunk);
      };
      // Its sum, where `total += v` takes it (Note [Sums of scalar kernels]).
      auto sum = [runner, layout] {
        return detail::sum_chunks(layout->count, [&](int64_t begin, int64_t end) {
          double total = 0;
          for_each_row(*layout, begin, end, [&](const ExampleCursor& at, int64_t, int64_t n) {
            total += runner->sum_row(runner->row(at), n);
          });
          return total;
        });
      };
      if constexpr (Runner::kNumbersOnly && std::is_default_constructible_v<Kernel>)
        if (layout->device == kCPU && !active)
          return detail::scalar_kernel_deferred(layout, cpp_dtype<R>(), fill, sum);
      Tensor result = vmap::empty(layout->sizes, vmap::detail::dtype_of<Held>);
      fill(result.raw_data());
      return detail::scalar_kernel_value(*layout, result);
    }
  }(std::index_sequence_for<Args...>{});
}

}  // namespace detail

// Note [Examples in order]
// A kernel that reads or stores elements may raise the loop's error at an example (an index
// out of range); one that divides integers may trap at a later one (by zero), which the loop
// as written never reaches. On threads, a later chunk of examples runs beside the earlier
// one, and its trap would kill the program where the loop raises a catchable vmap::Error.
// So the tool passes such a kernel (element reads or stores, and an integer `/` or `%` by a
// non-constant or a call of the file's code: transform/fuse_scalar.cpp's mayTrap) as
// `vb::fused_scalar(vb::in_order, ...)`: its examples run in loop order on the calling
// thread (parallel_chunks), the first error raised before any later example runs.
struct InOrder {};
inline constexpr InOrder in_order{};

template <class Kernel, class... Args>
Value fused_scalar(const Kernel& kernel, const Args&... args) {
  return detail::scalar_kernel(DeviceCode{}, kernel, detail::NoLanes{}, args...);
}
template <class... Args>
Value fused_scalar(InOrder, const Args&... args) {
  const detail::ExamplesInOrder in_order;
  return fused_scalar(args...);
}
template <class Kernel, class... Args>
Value fused_scalar(DeviceCode code, const Kernel& kernel, const Args&... args) {
  return detail::scalar_kernel(code, kernel, detail::NoLanes{}, args...);
}
// With its lane form (Note [Lane kernels]).
template <class Kernel, class Lambda, class... Args>
Value fused_scalar(const Kernel& kernel, const OverLanes<Lambda>& lanes, const Args&... args) {
  return detail::scalar_kernel(DeviceCode{}, kernel, lanes, args...);
}
template <class Kernel, class Lambda, class... Args>
Value fused_scalar(DeviceCode code, const Kernel& kernel, const OverLanes<Lambda>& lanes,
                   const Args&... args) {
  return detail::scalar_kernel(code, kernel, lanes, args...);
}

}  // namespace vmap::batched
