// softmax and log_softmax along one dim, numerically stable (the line's max is subtracted
// before exp), sums accumulated in double. Each line along `dim` is independent; lines are
// split over threads. Contiguous lines take a Highway kernel (compiled per target, this file
// re-including itself through foreach_target.h as ops_reduce.cpp does).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops_nn.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace vmap::detail::softmax_kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// softmax (or log_softmax) of one contiguous line, in three vector passes over data that
// stays in L1/L2: the max; the sum of exp(x - max), taken in T lanes over 1024-element chunks
// and added in double (softmax stores the exps); then out = exp * (1 / sum) or
// out = (x - max) - log(sum). Returns false, having written nothing, when a lane is NaN or
// infinite: the caller's scalar path gives those lines LibTorch's results.
template <class T, bool is_log>
bool softmax_run(const T* in, T* out, int64_t count) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t vector_end = count / lanes * lanes;
  auto max_lanes = hn::Set(d, -std::numeric_limits<T>::infinity());
  auto probe = hn::Zero(d);  // x * 0 sums to NaN iff some x is NaN or infinite
  for (int64_t k = 0; k < vector_end; k += lanes) {
    const auto x = hn::LoadU(d, in + k);
    max_lanes = hn::Max(max_lanes, x);
    probe = hn::Add(probe, hn::Mul(x, hn::Zero(d)));
  }
  T max = hn::GetLane(hn::MaxOfLanes(d, max_lanes));
  T tail_probe = hn::GetLane(hn::SumOfLanes(d, probe));
  for (int64_t k = vector_end; k < count; ++k) {
    max = in[k] > max ? in[k] : max;
    tail_probe += in[k] * T(0);
  }
  if (tail_probe != T(0)) return false;

  // Shifted values below `lowest` only arise from overflow (x - max with both finite): they
  // are clamped there, where Highway's exp gives 0 as exp(-inf) would.
  const auto shift = hn::Set(d, max), lowest = hn::Set(d, std::numeric_limits<T>::lowest());
  constexpr int64_t chunk = 1024;
  double sum = 0.0;
  for (int64_t start = 0; start < vector_end; start += chunk) {
    const int64_t end = std::min(vector_end, start + chunk);
    auto acc = hn::Zero(d);
    for (int64_t k = start; k < end; k += lanes) {
      // Lines usually follow one another: fetch the next one while exp keeps the core busy
      // (the hardware prefetcher stops at page ends, and a line of 1000 floats is one page).
      hwy::Prefetch(in + count + k);
      hwy::Prefetch(out + count + k);
      const auto e = hn::Exp(d, hn::Max(hn::Sub(hn::LoadU(d, in + k), shift), lowest));
      if constexpr (!is_log) hn::StoreU(e, d, out + k);
      acc = hn::Add(acc, e);
    }
    sum += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, acc)));
  }
  for (int64_t k = vector_end; k < count; ++k) {
    const T e = std::exp(in[k] - max);
    if constexpr (!is_log) out[k] = e;
    sum += static_cast<double>(e);
  }

  if constexpr (is_log) {
    const T log_sum = static_cast<T>(std::log(sum));
    const auto offset = hn::Set(d, log_sum);
    for (int64_t k = 0; k < vector_end; k += lanes)
      hn::StoreU(hn::Sub(hn::Sub(hn::LoadU(d, in + k), shift), offset), d, out + k);
    for (int64_t k = vector_end; k < count; ++k) out[k] = (in[k] - max) - log_sum;
  } else {
    const T scale = static_cast<T>(1.0 / sum);
    const auto scale_lanes = hn::Set(d, scale);
    for (int64_t k = 0; k < vector_end; k += lanes)
      hn::StoreU(hn::Mul(hn::LoadU(d, out + k), scale_lanes), d, out + k);
    for (int64_t k = vector_end; k < count; ++k) out[k] *= scale;
  }
  return true;
}

// The exported entry points: one per (dtype, softmax or log_softmax).
bool SoftmaxF32(const float* in, float* out, int64_t count) {
  return softmax_run<float, false>(in, out, count);
}
bool LogSoftmaxF32(const float* in, float* out, int64_t count) {
  return softmax_run<float, true>(in, out, count);
}
bool SoftmaxF64(const double* in, double* out, int64_t count) {
  return softmax_run<double, false>(in, out, count);
}
bool LogSoftmaxF64(const double* in, double* out, int64_t count) {
  return softmax_run<double, true>(in, out, count);
}

}  // namespace vmap::detail::softmax_kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "internal.hpp"

#include <limits>

namespace vmap {
namespace detail {
namespace softmax_kernels {

HWY_EXPORT(SoftmaxF32);
HWY_EXPORT(LogSoftmaxF32);
HWY_EXPORT(SoftmaxF64);
HWY_EXPORT(LogSoftmaxF64);

// Whether the vector kernel handled the contiguous line (false: it holds NaN or inf).
template <class T, bool is_log>
bool softmax_vectorised(const T* in, T* out, int64_t count) {
  if constexpr (std::is_same_v<T, float>)
    return is_log ? HWY_DYNAMIC_DISPATCH(LogSoftmaxF32)(in, out, count)
                  : HWY_DYNAMIC_DISPATCH(SoftmaxF32)(in, out, count);
  else
    return is_log ? HWY_DYNAMIC_DISPATCH(LogSoftmaxF64)(in, out, count)
                  : HWY_DYNAMIC_DISPATCH(SoftmaxF64)(in, out, count);
}

}  // namespace softmax_kernels

namespace {

template <class T, bool is_log>
void softmax_line(const T* in, int64_t in_stride, T* out, int64_t out_stride, int64_t count) {
  if (in_stride == 1 && out_stride == 1 &&
      softmax_kernels::softmax_vectorised<T, is_log>(in, out, count))
    return;
  T max = -std::numeric_limits<T>::infinity();
  bool has_nan = false;
  for (int64_t k = 0; k < count; ++k) {
    const T x = in[k * in_stride];
    has_nan |= x != x;
    max = x > max ? x : max;
  }
  double sum = 0.0;
  // Strided lines, and lines with NaN or inf: exp(NaN) and exp(inf - inf) make the line NaN,
  // as in LibTorch.
  if (has_nan) max = std::numeric_limits<T>::quiet_NaN();
  for (int64_t k = 0; k < count; ++k) {
    const T e = std::exp(in[k * in_stride] - max);
    out[k * out_stride] = e;
    sum += static_cast<double>(e);
  }
  if constexpr (is_log) {
    const T log_sum = static_cast<T>(std::log(sum));
    for (int64_t k = 0; k < count; ++k) out[k * out_stride] = (in[k * in_stride] - max) - log_sum;
  } else {
    const T scale = static_cast<T>(1.0 / sum);
    for (int64_t k = 0; k < count; ++k) out[k * out_stride] *= scale;
  }
}

// On the device: the same steps as softmax_line, each a device op (the sum accumulates in
// the input's type there, not in double).
template <bool is_log>
Tensor device_softmax(const Tensor& self, IntList dims) {
  const Tensor shifted = self - amax(self, dims, true);
  const Tensor sum_of_exps = sum(exp(shifted), dims, true);
  return is_log ? shifted - log(sum_of_exps) : exp(shifted) / sum_of_exps;
}

template <bool is_log>
Tensor softmax_impl(const char* op, const Tensor& self, int64_t dim) {
  const TensorImpl& impl = impl_of(self, op);
  if (!is_floating(self.dtype()))
    fail(op, "expected a floating point tensor, but got ", self.dtype());
  const int64_t rank = self.dim();
  const int64_t wrapped = wrap_dim(op, dim, rank);
  if (impl.device() != kCPU) {
    if (self.numel() == 0) return empty_tensor(self.sizes(), self.dtype(), self.device());
    return device_softmax<is_log>(self, rank == 0 ? IntList() : IntList(wrapped));
  }
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  if (self.numel() == 0) return out;
  const int64_t count = rank == 0 ? 1 : impl.sizes[wrapped];
  const int64_t in_stride = rank == 0 ? 1 : impl.strides[wrapped];
  const Dims out_strides = contiguous_strides(self.sizes());
  const int64_t out_stride = rank == 0 ? 1 : out_strides[wrapped];
  const int64_t lines = self.numel() / count;
  visit_dtype(self.dtype(), [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_floating_point_v<T>) {
      const T* in = impl.data_as<T>();
      T* result = impl_of(out).data_as<T>();
      parallel_for(lines, count * 4, [&](int64_t begin, int64_t end) {
        for (int64_t line = begin; line < end; ++line) {
          // Position of the line over the dims other than `wrapped`, innermost last.
          int64_t in_offset = 0, out_offset = 0;
          for (int64_t d = rank - 1, rest = line; d >= 0; --d) {
            if (d == wrapped) continue;
            const int64_t position = rest % impl.sizes[d];
            rest /= impl.sizes[d];
            in_offset += position * impl.strides[d];
            out_offset += position * out_strides[d];
          }
          softmax_line<T, is_log>(in + in_offset, in_stride, result + out_offset, out_stride,
                                  count);
        }
      });
    }
  });
  return out;
}

}  // namespace
}  // namespace detail

Tensor softmax(const Tensor& self, int64_t dim) {
  return detail::softmax_impl<false>("softmax", self, dim);
}
Tensor log_softmax(const Tensor& self, int64_t dim) {
  return detail::softmax_impl<true>("log_softmax", self, dim);
}

}  // namespace vmap
#endif  // HWY_ONCE
