// softmax and log_softmax along one dim, numerically stable (the line's max is subtracted
// before exp), accumulating in double. Each line along `dim` is independent; lines are split
// over threads.
#include "internal.hpp"

#include <cmath>
#include <limits>

namespace vmap {
namespace detail {
namespace {

template <class T, bool is_log>
void softmax_line(const T* in, int64_t in_stride, T* out, int64_t out_stride, int64_t count) {
  T max = -std::numeric_limits<T>::infinity();
  for (int64_t k = 0; k < count; ++k) max = std::max(max, in[k * in_stride]);
  // All -inf: exp(-inf - -inf) is NaN, as in LibTorch. A NaN input gives NaN through `sum`.
  double sum = 0.0;
  for (int64_t k = 0; k < count; ++k) {
    const T shifted = in[k * in_stride] - max;
    if constexpr (is_log) {
      out[k * out_stride] = shifted;
      sum += std::exp(static_cast<double>(shifted));
    } else {
      const T e = std::exp(shifted);
      out[k * out_stride] = e;
      sum += e;
    }
  }
  if constexpr (is_log) {
    const T log_sum = static_cast<T>(std::log(sum));
    for (int64_t k = 0; k < count; ++k) out[k * out_stride] -= log_sum;
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
