// The non-template side of scalar kernels (Note [Scalar kernels] in
// include/vmap/fused_scalar.hpp): their operands over every active level, the live mask,
// the threads, and the result as a per-example C++ scalar.
#include <vmap/fused_scalar.hpp>
#include <vmap/detail/parallel.hpp>

#include "backend.hpp"
#include "batched_fused.hpp"
#include "batched_internal.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <numeric>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

namespace vmap::batched::detail {

namespace {

// `v` where the kernel runs (layout.device, else the CPU), expanded over every level of
// `layout` (no copy), its level strides and those of its own dims, in bytes.
ElementOperand over_every_level(const Value& v, const ScalarKernelLayout& layout, Device run_on) {
  ElementOperand e;
  e.sizes = v.sizes();
  std::vector<int64_t> sizes = layout.sizes;
  sizes.insert(sizes.end(), e.sizes.begin(), e.sizes.end());
  e.held = v.aligned(layout.levels).to(run_on).expand(sizes);
  e.base = static_cast<const char*>(e.held.raw_data());
  e.dtype = e.held.dtype();
  const int64_t item = vmap::detail::element_size(e.held.dtype());
  const auto strides = e.held.strides();
  for (std::size_t d = 0; d < sizes.size(); ++d)
    (d < static_cast<std::size_t>(layout.levels) ? e.level_strides : e.strides)
        .push_back(strides[d] * item);
  return e;
}

}  // namespace

LaneMajorCopy lane_major_copy(const ElementOperand& e, int64_t count) {
  const int64_t dims = static_cast<int64_t>(e.sizes.size());
  const int64_t item = vmap::detail::element_size(e.dtype);
  const bool every_example = std::all_of(e.level_strides.begin(), e.level_strides.end(),
                                         [](int64_t stride) { return stride == 0; });
  if (!every_example || dims == 0 || e.strides[0] == item || count == 0) return {};
  Tensor whole = e.held;
  for (std::size_t level = 0; level < e.level_strides.size(); ++level) whole = whole.select(0, 0);
  if (whole.numel() == 0 || whole.numel() > count) return {};
  std::vector<int64_t> order;  // dims 1.., then dim 0
  for (int64_t d = 1; d < dims; ++d) order.push_back(d);
  order.push_back(0);
  LaneMajorCopy copy;
  copy.held = whole.permute(order).contiguous();
  const auto strides = copy.held.strides();
  copy.strides.push_back(strides[dims - 1] * item);
  for (int64_t d = 1; d < dims; ++d) copy.strides.push_back(strides[d - 1] * item);
  copy.view = {static_cast<const char*>(copy.held.raw_data()), copy.strides.data()};
  return copy;
}

void fail_element_select_0dim() {
  throw vmap::Error(std::string(vmap::detail::OpName::named("select")) +
                    ": cannot be applied to a 0-dim tensor");
}

void fail_element_index(int64_t index, int64_t size) {
  throw vmap::Error(std::string(vmap::detail::OpName::named("select")) + ": index " +
                    std::to_string(index) + " out of range for dim 0 of size " +
                    std::to_string(size));
}

void lane_miss() { throw LaneMiss{}; }

void fail_element_item(int64_t numel) {
  throw vmap::Error(std::string(vmap::detail::OpName::named("item")) + ": a Tensor with " +
                    std::to_string(numel) + " elements cannot be converted to Scalar");
}

ScalarKernelLayout plan_scalar_kernel(const std::vector<Value>& operands,
                                      const std::vector<Dtype>& dtypes,
                                      const std::vector<Value>& elements, bool on_the_device) {
  ScalarKernelLayout layout;
  layout.levels = active_levels();
  for (int64_t level = 0; level < layout.levels; ++level) {
    layout.sizes.push_back(level_size(level));
    layout.count *= layout.sizes.back();
  }
  for (const Value& v : operands)
    if (placed_on(v) != kCPU) layout.device = placed_on(v);
  for (const Value& v : elements)
    if (placed_on(v) != kCPU) layout.device = placed_on(v);
  const Device run_on = on_the_device ? layout.device : kCPU;
  for (std::size_t n = 0; n < operands.size(); ++n) {
    if (operands[n].dim() != 0)
      throw vmap::Error("fused_scalar: an operand has " + std::to_string(operands[n].dim()) +
                        " dims per example, not one number");
    layout.operands.push_back(over_every_level(operands[n].to(dtypes[n]), layout, run_on));
    // Note [Loop indices in scalar kernels]: the kernel computes a loop's index of an integer
    // type (as `.to(dtype)` converts it, C++'s conversion) instead of reading it.
    const int64_t level = Access::induction_level(operands[n]);
    if (level >= 0 && level < layout.levels && vmap::detail::is_integral(dtypes[n])) {
      layout.operands.back().index_level = level;
      layout.operands.back().index_start = level_start(level);
    }
  }
  for (const Value& v : elements) layout.elements.push_back(over_every_level(v, layout, run_on));
  if (const Value* mask = current_mask())
    layout.active =
        mask->aligned(layout.levels).to(run_on).to(kBool).expand(layout.sizes).contiguous();
  return layout;
}

namespace {
thread_local bool examples_in_order = false;
}  // namespace

ExamplesInOrder::ExamplesInOrder() : before_(examples_in_order) { examples_in_order = true; }
ExamplesInOrder::~ExamplesInOrder() { examples_in_order = before_; }

void parallel_chunks(int64_t count, const std::function<void(int64_t, int64_t)>& body,
                     int64_t chunk) {
  if (examples_in_order) {  // Note [Examples in order]
    for (int64_t begin = 0; begin < count; begin += chunk)
      body(begin, std::min(count, begin + chunk));
    return;
  }
  // Small enough that the examples of an expensive corner (Mandelbrot's set itself) spread
  // over the threads (taken by whichever thread is free, parallel_for_each), large enough
  // that taking one costs nothing next to running it. An element read out of range throws
  // (Note [Element reads]): the first chunk's error is thrown, a chunk runs its examples in
  // order, so it is the first example's in loop order, the one the loop as written raises.
  const int64_t chunks = (count + chunk - 1) / chunk;
  vmap::detail::parallel_for_each(chunks, vmap::detail::parallel_grain, [&](int64_t c) {
    body(c * chunk, std::min(count, (c + 1) * chunk));
  });
}

Value scalar_kernel_value(const ScalarKernelLayout& layout, const Tensor& result,
                          bool cpp_scalar) {
  return Value(layout.device == kCPU ? result : result.to(layout.device), layout.levels,
               cpp_scalar);
}

Value scalar_kernel_deferred(std::shared_ptr<const ScalarKernelLayout> layout, Dtype dtype,
                             std::function<void(void* out)> fill, std::function<double()> sum) {
  std::vector<Tensor> inputs;
  for (const ElementOperand& e : layout->operands) inputs.push_back(e.held);
  for (const ElementOperand& e : layout->elements) inputs.push_back(e.held);
  if (layout->active.defined()) inputs.push_back(layout->active);
  std::vector<int64_t> sizes = layout->sizes;
  const int64_t levels = layout->levels;
  auto compute = [layout = std::move(layout), dtype, fill = std::move(fill)](const Tensor& destination) {
    const Tensor out = destination.defined() && destination.dtype() == dtype
                           ? destination
                           : vmap::empty(layout->sizes, TensorOptions(dtype));
    fill(out.raw_data());
    return out;
  };
  // Each example's number from its own operands alone: a store may compute into a slot an
  // operand reads element for element (Pending::elementwise).
  return Access::make_pending(whole_node(std::move(sizes), dtype, kCPU, std::move(inputs),
                                         std::move(compute), true, std::move(sum)),
                              levels, true);
}

double sum_chunks(int64_t count, const std::function<double(int64_t, int64_t)>& body) {
  constexpr int64_t kChunk = 4096;
  const int64_t chunks = (count + kChunk - 1) / kChunk;
  std::vector<double> partial(static_cast<std::size_t>(chunks));
  vmap::detail::parallel_for_each(chunks, vmap::detail::parallel_grain, [&](int64_t chunk) {
    partial[chunk] = body(chunk * kChunk, std::min(count, (chunk + 1) * kChunk));
  });
  return std::accumulate(partial.begin(), partial.end(), 0.0);
}

void settle_stores(const ScalarKernelLayout& layout, const std::vector<bool>& written) {
  for (std::size_t n = 0; n < written.size(); ++n)
    if (written[n]) settle_before_write(layout.elements[n].held);
}

Tensor element_result(const ScalarKernelLayout& layout, const Elements& first, int64_t example) {
  std::vector<int64_t> sizes = layout.sizes;
  sizes.insert(sizes.end(), first.sizes(), first.sizes() + first.dim());
  // The examples a live mask leaves out are never written: zeros, as fused_scalar's.
  const TensorOptions options(first.dtype());
  Tensor result = layout.active.defined() ? vmap::zeros(sizes, options) : vmap::empty(sizes, options);
  store_elements(layout, first, result, example);
  return result;
}

void store_elements(const ScalarKernelLayout& layout, const Elements& from, const Tensor& result,
                    int64_t example) {
  const int64_t item = vmap::detail::element_size(result.dtype());
  const int64_t numel = from.numel();
  if (from.dtype() != result.dtype() || from.dim() + layout.levels != result.dim())
    throw vmap::Error("fused_scalar: a kernel returned elements of two tensors");
  char* to = static_cast<char*>(result.raw_data()) + example * numel * item;
  if (from.dim() == 0) {
    std::memcpy(to, from.data(), item);
    return;
  }
  // Row-major over the example's dims, whatever its strides.
  std::vector<int64_t> index(from.dim(), 0);
  for (int64_t n = 0; n < numel; ++n) {
    const char* at = from.data();
    for (int64_t d = 0; d < from.dim(); ++d) at += index[d] * from.byte_strides()[d];
    std::memcpy(to + n * item, at, item);
    for (int64_t d = from.dim(); d-- > 0;) {
      if (++index[d] < from.sizes()[d]) break;
      index[d] = 0;
    }
  }
}

void store_back(const ScalarKernelLayout& layout, const std::vector<Value>& elements,
                const std::vector<bool>& written) {
  for (std::size_t n = 0; n < elements.size(); ++n)
    if (written[n] && placed_on(elements[n]) != kCPU)
      elements[n].aligned(layout.levels).copy_(layout.elements[n].held);
}

namespace {

// Calls at(address) for each element of `e`, row-major, whatever its strides.
template <class Visit>
void each_element(const Elements& e, const Visit& at) {
  const int64_t numel = e.numel();
  std::vector<int64_t> index(e.dim(), 0);
  for (int64_t n = 0; n < numel; ++n) {
    const char* address = e.data();
    for (int64_t d = 0; d < e.dim(); ++d) address += index[d] * e.byte_strides()[d];
    at(n, const_cast<char*>(address));
    for (int64_t d = e.dim(); d-- > 0;) {
      if (++index[d] < e.sizes()[d]) break;
      index[d] = 0;
    }
  }
}

// Calls visit(std::type_identity<T>) with the C++ type of `dtype`'s elements.
template <class Visit>
decltype(auto) by_dtype(Dtype dtype, const Visit& visit) {
  switch (dtype) {
    case Dtype::Float32: return visit(std::type_identity<float>{});
    case Dtype::Float64: return visit(std::type_identity<double>{});
    case Dtype::Int32: return visit(std::type_identity<int32_t>{});
    case Dtype::Int64: return visit(std::type_identity<int64_t>{});
    case Dtype::Bool: return visit(std::type_identity<bool>{});
  }
  __builtin_unreachable();
}

// The element at `address` of `dtype` as a Scalar.
vmap::detail::Scalar scalar_at(const char* address, Dtype dtype) {
  return by_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    T value;
    std::memcpy(&value, address, sizeof value);
    return vmap::detail::Scalar(value);
  });
}

}  // namespace

}  // namespace vmap::batched::detail

namespace vmap::batched {

// Tensor::fill_(value) on the view: each element, the value converted (checked) as fill_
// converts it.
void WritableElements::put(vmap::detail::Scalar value, bool checked) const {
  detail::by_dtype(dtype(), [&]<class T>(std::type_identity<T>) {
    const T filler = checked ? value.checked_to<T>("fill_") : value.to<T>();
    detail::each_element(*this, [&](int64_t, char* to) { std::memcpy(to, &filler, sizeof filler); });
  });
}

// Tensor::copy_(from) on the view, for what a kernel stores: one element (to every element
// of the view), or a view of the same sizes, element by element.
void WritableElements::copy(const Elements& from) const {
  if (from.dim() == 0) return put(detail::scalar_at(from.data(), from.dtype()), false);
  if (from.dim() != dim() || !std::equal(sizes(), sizes() + dim(), from.sizes()))
    throw vmap::Error("fused_scalar: a kernel stores " + std::to_string(from.numel()) +
                      " elements into " + std::to_string(numel()) +
                      " of another shape (broadcast stores stay batched)");
  std::vector<char*> to;
  detail::each_element(*this, [&](int64_t, char* address) { to.push_back(address); });
  detail::each_element(from, [&](int64_t n, char* address) {
    WritableElements(Elements(to[n], dtype(), 0, nullptr, nullptr)) =
        Elements(address, from.dtype(), 0, nullptr, nullptr);
  });
}

}  // namespace vmap::batched

namespace vmap::batched::detail {

extern const char kKernelDeviceHeader[];  // kernel_device.hpp's text (rules/CMakeLists.txt)

static_assert(static_cast<int>(kFloat32) == vmap_kernel::float32 &&
              static_cast<int>(kFloat64) == vmap_kernel::float64 &&
              static_cast<int>(kInt32) == vmap_kernel::int32 &&
              static_cast<int>(kInt64) == vmap_kernel::int64 &&
              static_cast<int>(kBool) == vmap_kernel::boolean);

std::string device_program(DeviceCode code, const char* held, const std::string& reads) {
  return std::string(kKernelDeviceHeader) + "\nnamespace " + code.alias +
         " { using vmap_kernel::Elements; }\n"
         "extern \"C\" __global__ void vmap_entry(const vmap_kernel::Args args) {\n"
         "  const int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;\n"
         "  if (p < args.count)\n"
         "    vmap_kernel::run_example<" + held + (reads.empty() ? "" : ", ") + reads +
         ">(args, p,\n" + code.lambda + ");\n}\n";
}

bool checking_device_kernels() {
  static const bool checking = [] {
    const char* set = std::getenv("VMAP_CHECK_DEVICE_KERNELS");
    return set && *set && std::string(set) != "0";
  }();
  return checking;
}

void check_device_program(const std::string& program) {
  vmap::detail::CompiledKernelCall call;
  call.source = program.c_str();
  vmap::detail::check_device_kernel("fused scalar", call);
}

bool on_a_device(const std::vector<Value>& values, const std::vector<Value>& elements) {
  for (const Value& v : values)
    if (placed_on(v) != kCPU) return true;
  for (const Value& v : elements)
    if (placed_on(v) != kCPU) return true;
  return false;
}

bool fits_device_args(const ScalarKernelLayout& layout, std::size_t parameters) {
  if (layout.levels > vmap_kernel::kMaxLevels || parameters > vmap_kernel::kMaxParameters)
    return false;
  for (const ElementOperand& e : layout.elements)
    if (e.sizes.size() > static_cast<std::size_t>(vmap_kernel::kMaxDims)) return false;
  return true;
}

bool run_on_device(const ScalarKernelLayout& layout, const std::string& program,
                   void (*host)(const void*), const std::vector<int>& kinds,
                   const std::vector<std::array<unsigned char, 8>>& numbers, Dtype held,
                   bool reads_elements, Tensor& result) {
  const TensorOptions on_device = TensorOptions().device(layout.device);
  result = vmap::empty(layout.sizes, on_device.dtype(held));
  // Only elements read at computed indices can stop an example (Note [Scalar kernels on a
  // device]): other kernels need no flag, and no launch to clear one.
  const Tensor error = reads_elements ? vmap::zeros({1}, on_device.dtype(kInt32)) : Tensor();
  vmap_kernel::Args args{};
  args.count = layout.count;
  args.levels = static_cast<int>(layout.levels);
  for (int64_t l = 0; l < layout.levels; ++l) args.sizes[l] = layout.sizes[l];
  args.active = layout.active.defined() ? layout.active.data_ptr<bool>() : nullptr;
  args.out = static_cast<char*>(result.raw_data());
  args.error = reads_elements ? error.data_ptr<int32_t>() : nullptr;
  const auto fill = [&](vmap_kernel::Operand& to, const ElementOperand& from) {
    to.base = from.base;
    for (std::size_t l = 0; l < from.level_strides.size(); ++l)
      to.level_strides[l] = from.level_strides[l];
    to.dtype = static_cast<int>(from.dtype);
    to.dims = static_cast<int>(from.sizes.size());
    for (std::size_t d = 0; d < from.sizes.size(); ++d) {
      to.sizes[d] = from.sizes[d];
      to.strides[d] = from.strides[d];
    }
  };
  std::size_t next = 0, next_element = 0;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i] == 1) fill(args.operands[i], layout.operands[next++]);
    if (kinds[i] == 2) fill(args.operands[i], layout.elements[next_element++]);
    if (kinds[i] == 0) std::memcpy(args.numbers[i], numbers[i].data(), 8);
  }
  vmap::detail::CompiledKernelCall call;
  call.source = program.c_str();
  call.count = layout.count;
  call.arguments = &args;
  call.argument_bytes = sizeof args;
  call.host = host;
  call.host_context = &args;
  if (!vmap::detail::device_backend("fused scalar").compiled_kernel("fused scalar", call))
    return false;
  // Only a kernel that reads elements can stop an example (a checked read): only it waits.
  return !reads_elements || error.to(kCPU).item<int32_t>() == vmap_kernel::none;
}

}  // namespace vmap::batched::detail
