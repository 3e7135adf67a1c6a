// Factories: filled, ranged, random, from nested lists, and over user memory.
//
// Note [Random numbers]
// One global generator (std::mt19937_64, seeded by manual_seed; default seed 0) produces
// 64-bit words, turned into values by fixed formulas so results do not depend on the C++
// library: rand float32 = (w >> 40) * 2^-24, float64 = (w >> 11) * 2^-53; randn is
// Box-Muller on two such doubles; randint = low + w % (high - low). The values differ from
// LibTorch's generator (same distributions, not the same streams).
#include "internal.hpp"
#include "../cuda/device_ops.hpp"

#include <cmath>
#include <mutex>
#include <numbers>
#include <random>

namespace vmap {
namespace {

using detail::fail;
using detail::IntList;
using detail::Scalar;

struct Generator {
  std::mutex mutex;
  std::mt19937_64 engine{0};
};
Generator& generator() {
  static Generator instance;
  return instance;
}

Tensor filled(const char* op, IntList sizes, Scalar value, Dtype dtype, Device device) {
  const detail::OpName op_name(op);  // fill_'s errors name the factory called
  Tensor result = detail::empty_tensor(sizes, dtype, device, op);
  result.fill_(value);
  return result;
}

// Fills a new contiguous tensor element by element from draw(word_source), on the CPU and then
// copied to `device` (as for arange and tensor: host code never writes device memory).
template <class F>
Tensor random_tensor(const char* op, IntList sizes, Dtype dtype, Device device, F draw) {
  if (device != kCPU) detail::device_backend(op);  // before drawing, not in to()
  Tensor result = detail::empty_tensor(sizes, dtype, kCPU, op);
  auto& state = generator();
  std::lock_guard lock(state.mutex);
  detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    T* data = result.data_ptr<T>();
    const int64_t numel = result.numel();
    for (int64_t k = 0; k < numel; ++k) data[k] = static_cast<T>(draw(state.engine));
  });
  return result.to(device);
}

double uniform_double(std::mt19937_64& engine) { return static_cast<double>(engine() >> 11) * 0x1p-53; }

// The *_like draws: self's dtype and device where the options leave them unset.
TensorOptions options_like(const detail::TensorImpl& like, TensorOptions options) {
  return TensorOptions(options.dtype_or(like.dtype)).device(options.device_or(like.device()));
}

}  // namespace

Tensor zeros(IntList sizes, TensorOptions options) {
  return filled("zeros", sizes, 0, options.dtype_or(kFloat32), options.device_or(kCPU));
}
Tensor ones(IntList sizes, TensorOptions options) {
  return filled("ones", sizes, 1, options.dtype_or(kFloat32), options.device_or(kCPU));
}
Tensor full(IntList sizes, Scalar value, TensorOptions options) {
  const Dtype inferred = value.is_floating() ? kFloat32 : value.dtype();
  return filled("full", sizes, value, options.dtype_or(inferred), options.device_or(kCPU));
}
Tensor empty(IntList sizes, TensorOptions options) {
  return detail::empty_tensor(sizes, options.dtype_or(kFloat32), options.device_or(kCPU), "empty");
}
// The *_like factories read self's geometry through impl_of, so an undefined self fails
// naming the factory rather than the accessor.
Tensor zeros_like(const Tensor& self, TensorOptions options) {
  const detail::TensorImpl& like = detail::impl_of(self, "zeros_like");
  return filled("zeros_like", like.sizes, 0, options.dtype_or(like.dtype),
                options.device_or(like.device()));
}
Tensor ones_like(const Tensor& self, TensorOptions options) {
  const detail::TensorImpl& like = detail::impl_of(self, "ones_like");
  return filled("ones_like", like.sizes, 1, options.dtype_or(like.dtype),
                options.device_or(like.device()));
}
Tensor full_like(const Tensor& self, Scalar value, TensorOptions options) {
  const detail::TensorImpl& like = detail::impl_of(self, "full_like");
  return filled("full_like", like.sizes, value, options.dtype_or(like.dtype),
                options.device_or(like.device()));
}
Tensor empty_like(const Tensor& self, TensorOptions options) {
  const detail::TensorImpl& like = detail::impl_of(self, "empty_like");
  return detail::empty_tensor(like.sizes, options.dtype_or(like.dtype),
                              options.device_or(like.device()), "empty_like");
}

Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions options) {
  const bool any_floating = start.is_floating() || end.is_floating() || step.is_floating();
  const Dtype dtype = options.dtype_or(any_floating ? kFloat32 : kInt64);
  const double first = start.to_double(), last = end.to_double(), increment = step.to_double();
  if (increment == 0) fail("arange", "step must be nonzero");
  if (!std::isfinite(first) || !std::isfinite(last))
    fail("arange", "unsupported range: ", start, " -> ", end);
  if ((increment > 0 && last < first) || (increment < 0 && last > first))
    fail("arange", "upper bound and larger bound inconsistent with step sign (start ", start,
         ", end ", end, ", step ", step, ")");
  const double count = std::ceil((last - first) / increment);
  if (!(count <= double(int64_t{1} << 48))) fail("arange", "range too large: ", count, " elements");
  const Device device = options.device_or(kCPU);
  if (device != kCPU) detail::device_backend("arange");  // before filling, not in to()
  Tensor result = detail::empty_tensor({static_cast<int64_t>(count)}, dtype, kCPU, "arange");
  detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    // Hoisted: the accessors are out-of-line calls the compiler cannot lift from the loop.
    T* data = result.data_ptr<T>();
    const int64_t numel = result.numel();
    if (!any_floating) {
      const int64_t first_integer = start.to_int64(), step_integer = step.to_int64();
      for (int64_t k = 0; k < numel; ++k) data[k] = static_cast<T>(first_integer + k * step_integer);
      return;
    }
    for (int64_t k = 0; k < numel; ++k) data[k] = static_cast<T>(first + static_cast<double>(k) * increment);
  });
  return result.to(device);
}
Tensor arange(Scalar start, Scalar end, TensorOptions options) {
  return arange(start, end, 1, options);
}
Tensor arange(Scalar end, TensorOptions options) { return arange(0, end, 1, options); }

Tensor rand(IntList sizes, TensorOptions options) {
  const Dtype dtype = options.dtype_or(kFloat32);
  if (!detail::is_floating(dtype)) fail("rand", "expected a floating dtype, got ", dtype);
  return random_tensor("rand", sizes, dtype, options.device_or(kCPU),
                       [dtype](std::mt19937_64& engine) {
                         return dtype == kFloat32 ? static_cast<double>(engine() >> 40) * 0x1p-24
                                                  : uniform_double(engine);
                       });
}

Tensor randn(IntList sizes, TensorOptions options) {
  const Dtype dtype = options.dtype_or(kFloat32);
  if (!detail::is_floating(dtype)) fail("randn", "expected a floating dtype, got ", dtype);
  return random_tensor("randn", sizes, dtype, options.device_or(kCPU), [](std::mt19937_64& engine) {
    const double u1 = 1.0 - uniform_double(engine);  // (0, 1]: log is finite
    const double u2 = uniform_double(engine);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  });
}

Tensor randint(int64_t low, int64_t high, IntList sizes, TensorOptions options) {
  if (low >= high)
    fail("randint", "random_ expects 'from' to be less than 'to', but got from=", low,
         " >= to=", high);
  const auto range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  return random_tensor("randint", sizes, options.dtype_or(kInt64), options.device_or(kCPU),
                       [low, range](std::mt19937_64& engine) {
                         return static_cast<int64_t>(static_cast<uint64_t>(low) + engine() % range);
                       });
}
Tensor randint(int64_t high, IntList sizes, TensorOptions options) {
  return randint(0, high, sizes, options);
}

Tensor rand_like(const Tensor& self, TensorOptions options) {
  const detail::TensorImpl& like = detail::impl_of(self, "rand_like");
  return rand(like.sizes, options_like(like, options));
}
Tensor randn_like(const Tensor& self, TensorOptions options) {
  const detail::TensorImpl& like = detail::impl_of(self, "randn_like");
  return randn(like.sizes, options_like(like, options));
}

// Note [Bernoulli draws]: an element is 1 where a uniform draw on [0, 1) (float64) is below
// its probability, so p = 0 never and p = 1 always gives 1, as LibTorch's.
Tensor bernoulli(const Tensor& p) {
  detail::check_probabilities("bernoulli", p);
  return rand(p.sizes(), TensorOptions(kFloat64).device(p.device())).lt(p).to(p.dtype());
}
Tensor bernoulli(const Tensor& self, double p) {
  detail::check_probabilities("bernoulli", p);
  const Tensor uniform = rand(detail::impl_of(self, "bernoulli").sizes,
                              TensorOptions(kFloat64).device(self.device()));
  return uniform.lt(p).to(self.dtype());
}

namespace detail {
void check_probabilities(const char* op, const Tensor& p) {
  const TensorImpl& probabilities = impl_of(p, op);
  if (!is_floating(probabilities.dtype))
    fail(op, "expected a floating dtype for p, got ", probabilities.dtype);
  // !(p >= 0 && p <= 1) holds for NaN too
  if (p.ge(0).logical_and(p.le(1)).logical_not().any().item<bool>())
    fail(op, "expected every p in [0, 1], got values from ", p.amin().item<double>(), " to ",
         p.amax().item<double>(), " (shape ", shape_str(probabilities.sizes), ")");
}
void check_probabilities(const char* op, double p) {
  if (!(p >= 0 && p <= 1)) fail(op, "expects p to be in [0, 1], but got p=", p);
}
}  // namespace detail

void manual_seed(uint64_t seed) {
  auto& state = generator();
  std::lock_guard lock(state.mutex);
  state.engine.seed(seed);
}

Tensor from_blob(void* data, IntList sizes, TensorOptions options) {
  const Dtype dtype = options.dtype_or(kFloat32);
  const int64_t numel = detail::checked_numel("from_blob", sizes);
  if (data == nullptr && numel > 0)
    fail("from_blob", "null data pointer for a tensor of shape ", detail::shape_str(sizes));
  if (options.device_or(kCPU) == kCUDA && numel > 0) detail::check_device_pointer("from_blob", data);
  auto storage = detail::borrow_storage(data, static_cast<size_t>(numel * detail::element_size(dtype)),
                                        options.device_or(kCPU));
  return detail::make_tensor(std::move(storage), sizes, detail::contiguous_strides(sizes), 0, dtype);
}

namespace detail {
TensorData::TensorData(std::initializer_list<TensorData> nested) {
  sizes_.push_back(static_cast<int64_t>(nested.size()));
  if (nested.size() == 0) return;
  const TensorData& first = *nested.begin();
  sizes_.insert(sizes_.end(), first.sizes_.begin(), first.sizes_.end());
  dtype_ = first.dtype_;
  for (const TensorData& element : nested) {
    if (element.sizes_ != first.sizes_)
      fail("tensor", "expected all sub-lists to have sizes ", shape_str(first.sizes_), ", got ",
           shape_str(element.sizes_));
    dtype_ = promote_types(dtype_, element.dtype_);
    values_.insert(values_.end(), element.values_.begin(), element.values_.end());
  }
}
}  // namespace detail

Tensor tensor(detail::TensorData data, TensorOptions options) {
  const Dtype dtype = options.dtype_or(data.dtype());
  Tensor result = detail::empty_tensor(data.sizes(), dtype);
  detail::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    T* out = result.data_ptr<T>();
    for (size_t k = 0; k < data.values().size(); ++k) out[k] = data.values()[k].to<T>();
  });
  return result.to(options.device_or(kCPU));
}

}  // namespace vmap
