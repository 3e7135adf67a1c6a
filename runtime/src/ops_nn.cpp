// softmax and log_softmax along one dim, numerically stable (the line's max is subtracted
// before exp), sums accumulated in double. Each line along `dim` is independent; lines are
// split over threads. Contiguous lines take Highway's vectorised exp (compiled per target,
// this file re-including itself through foreach_target.h as ops_reduce.cpp does).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops_nn.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

HWY_BEFORE_NAMESPACE();
namespace vmap::detail::softmax_kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// out[k] = exp(in[k] - max) for a contiguous line with finite max (so no NaN lanes); returns
// the sum of the out values, taken in T lanes over 1024-element chunks and added in double.
template <class T>
double exp_shifted_run(const T* in, T max, T* out, int64_t count) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto shift = hn::Set(d, max);
  constexpr int64_t chunk = 1024;
  double total = 0.0;
  for (int64_t start = 0; start < count; start += chunk) {
    const int64_t end = std::min(count, start + chunk);
    auto acc = hn::Zero(d);
    int64_t k = start;
    for (; k + lanes <= end; k += lanes) {
      const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, in + k), shift));
      hn::StoreU(e, d, out + k);
      acc = hn::Add(acc, e);
    }
    double partial = static_cast<double>(hn::GetLane(hn::SumOfLanes(d, acc)));
    for (; k < end; ++k) {
      out[k] = std::exp(in[k] - max);
      partial += static_cast<double>(out[k]);
    }
    total += partial;
  }
  return total;
}

double exp_shifted_run_f32(const float* in, float max, float* out, int64_t count) {
  return exp_shifted_run(in, max, out, count);
}
double exp_shifted_run_f64(const double* in, double max, double* out, int64_t count) {
  return exp_shifted_run(in, max, out, count);
}

}  // namespace vmap::detail::softmax_kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "internal.hpp"

#include <limits>

namespace vmap {
namespace detail {
namespace softmax_kernels {

HWY_EXPORT(exp_shifted_run_f32);
HWY_EXPORT(exp_shifted_run_f64);

template <class T>
double exp_shifted(const T* in, T max, T* out, int64_t count) {
  if constexpr (std::is_same_v<T, float>)
    return HWY_DYNAMIC_DISPATCH(exp_shifted_run_f32)(in, max, out, count);
  else
    return HWY_DYNAMIC_DISPATCH(exp_shifted_run_f64)(in, max, out, count);
}

}  // namespace softmax_kernels

namespace {

template <class T, bool is_log>
void softmax_line(const T* in, int64_t in_stride, T* out, int64_t out_stride, int64_t count) {
  T max = -std::numeric_limits<T>::infinity();
  bool has_nan = false;
  for (int64_t k = 0; k < count; ++k) {
    const T x = in[k * in_stride];
    has_nan |= x != x;
    max = x > max ? x : max;
  }
  double sum = 0.0;
  if (in_stride == 1 && out_stride == 1 && !has_nan && std::isfinite(max)) {
    sum = softmax_kernels::exp_shifted(in, max, out, count);  // out holds exp(x - max)
    if constexpr (is_log) {
      const T log_sum = static_cast<T>(std::log(sum));
      for (int64_t k = 0; k < count; ++k) out[k] = (in[k] - max) - log_sum;
    } else {
      const T scale = static_cast<T>(1.0 / sum);
      for (int64_t k = 0; k < count; ++k) out[k] *= scale;
    }
    return;
  }
  // NaN, +inf or all -inf in the line: exp(NaN) and exp(inf - inf) make the line NaN, as in
  // LibTorch; strided lines also come here.
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

template <bool is_log>
Tensor softmax_impl(const char* op, const Tensor& self, int64_t dim) {
  const TensorImpl& impl = impl_of(self, op);
  check_cpu(op, self);
  if (!is_floating(self.dtype()))
    fail(op, "expected a floating point tensor, but got ", self.dtype());
  const int64_t rank = self.dim();
  const int64_t wrapped = wrap_dim(op, dim, rank);
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
