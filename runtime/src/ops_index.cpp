// gather and index_select: one indexed-copy kernel. For every output position p,
//   out[p] = self[p with p[dim] replaced by index[p . index_strides]]
// where gather's index has the output's shape and index_select's index varies along `dim`
// only (stride 0 elsewhere). Indices are bounds-checked; nothing is read out of range.
#include "internal.hpp"
#include "../cuda/device_ops.hpp"

#include <algorithm>
#include <atomic>

namespace vmap {
namespace detail {
namespace {

// The geometry of one indexed copy; the output is contiguous with `out_sizes`.
struct IndexedCopy {
  const char* op;
  int64_t dim;
  int64_t dim_size;  // self.size(dim): valid indices are [0, dim_size)
  Dims out_sizes;
  Dims self_strides;   // per output dim; the entry at `dim` is self's stride along dim
  Dims index_strides;  // per output dim, into the index tensor
};

template <class T, class Index>
bool run_indexed_copy(const IndexedCopy& copy, const T* self, const Index* index, T* out) {
  const int64_t rank = static_cast<int64_t>(copy.out_sizes.size());
  const int64_t last = rank - 1;
  const int64_t row = copy.out_sizes[last];
  int64_t numel = 1;
  for (int64_t size : copy.out_sizes) numel *= size;
  if (numel == 0) return true;
  const int64_t rows = numel / row;
  const int64_t dim_stride = copy.self_strides[copy.dim];
  const int64_t self_step = copy.self_strides[last], index_step = copy.index_strides[last];
  std::atomic<bool> in_range{true};
  parallel_for(rows, row, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t self_offset = 0, index_offset = 0;
      for (int64_t d = last - 1, rest = r; d >= 0; --d) {
        const int64_t position = rest % copy.out_sizes[d];
        rest /= copy.out_sizes[d];
        index_offset += position * copy.index_strides[d];
        if (d != copy.dim) self_offset += position * copy.self_strides[d];
      }
      T* out_row = out + r * row;
      if (last != copy.dim && index_step == 0) {  // one index for the whole row
        const int64_t i = index[index_offset];
        if (i < 0 || i >= copy.dim_size) {
          in_range.store(false, std::memory_order_relaxed);
          continue;
        }
        const T* source = self + self_offset + i * dim_stride;
        if (self_step == 1) {
          std::copy(source, source + row, out_row);
        } else {
          for (int64_t j = 0; j < row; ++j) out_row[j] = source[j * self_step];
        }
        continue;
      }
      // Check the row's indices first (a branch-free loop), then copy without checks.
      const Index* row_index = index + index_offset;
      bool row_in_range = true;
      for (int64_t j = 0; j < row; ++j) {
        const int64_t i = row_index[j * index_step];
        row_in_range &= i >= 0 && i < copy.dim_size;
      }
      if (!row_in_range) {
        in_range.store(false, std::memory_order_relaxed);
        continue;
      }
      const T* source = self + self_offset;
      if (last == copy.dim && index_step == 1 && dim_stride == 1) {
        for (int64_t j = 0; j < row; ++j) out_row[j] = source[row_index[j]];
        continue;
      }
      const int64_t step = last == copy.dim ? 0 : self_step;
      for (int64_t j = 0; j < row; ++j)
        out_row[j] = source[j * step + row_index[j * index_step] * dim_stride];
    }
  });
  return in_range.load();
}

// Names the first out-of-range index (in row-major order of the index tensor).
template <class Index>
[[noreturn]] void fail_out_of_range(const IndexedCopy& copy, const Tensor& index) {
  const Tensor values = index.contiguous();
  const Index* data = impl_of(values).data_as<Index>();
  for (int64_t k = 0; k < values.numel(); ++k)
    if (data[k] < 0 || data[k] >= copy.dim_size)
      fail(copy.op, "index ", data[k], " out of range for dim ", copy.dim, " of size ",
           copy.dim_size);
  fail(copy.op, "index out of range for dim ", copy.dim, " of size ", copy.dim_size);
}

Tensor indexed_copy(const IndexedCopy& copy, const Tensor& self, const Tensor& index) {
  Tensor out = empty_tensor(copy.out_sizes, self.dtype(), self.device());
  visit_dtype(self.dtype(), [&]<class T>(std::type_identity<T>) {
    visit_dtype(index.dtype(), [&]<class Index>(std::type_identity<Index>) {
      if constexpr (std::is_same_v<Index, int32_t> || std::is_same_v<Index, int64_t>) {
        const bool in_range =
            self.device() == kCPU
                ? run_indexed_copy(copy, impl_of(self).data_as<T>(),
                                   impl_of(index).data_as<Index>(), impl_of(out).data_as<T>())
                : device_indexed_copy(copy.op, copy.dim, copy.dim_size, copy.self_strides,
                                      copy.index_strides, self, index, out);
        if (!in_range) fail_out_of_range<Index>(copy, index.to(kCPU));
      }
    });
  });
  return out;
}

// A 0-d tensor indexes like a 1-element 1-d tensor.
Dims sizes_at_least_1d(const Tensor& t) {
  return t.dim() == 0 ? Dims(IntList{1}) : Dims(t.sizes());
}
Dims strides_at_least_1d(const Tensor& t) {
  return t.dim() == 0 ? Dims(IntList{0}) : Dims(t.strides());
}

}  // namespace
}  // namespace detail

using detail::fail;

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  constexpr const char* op = "gather";
  detail::impl_of(self, op);
  detail::impl_of(index, op);
  detail::check_same_device(op, self, index);
  if (index.dtype() != kInt64) fail(op, "Expected dtype int64 for index, but got ", index.dtype());
  const int64_t wrapped = detail::wrap_dim(op, dim, self.dim());
  const int64_t rank = std::max<int64_t>(self.dim(), 1);
  if (std::max<int64_t>(index.dim(), 1) != rank)
    fail(op, "Index tensor must have the same number of dimensions as input tensor, but got ",
         index.sizes(), " and ", self.sizes());
  detail::IndexedCopy copy{op, wrapped, 0, detail::sizes_at_least_1d(index),
                           detail::strides_at_least_1d(self), detail::strides_at_least_1d(index)};
  const detail::Dims self_sizes = detail::sizes_at_least_1d(self);
  copy.dim_size = self_sizes[wrapped];
  for (int64_t d = 0; d < rank; ++d)
    if (d != wrapped && copy.out_sizes[d] > self_sizes[d])
      fail(op, "Size does not match at dimension ", d, " expected index ", index.sizes(),
           " to be smaller than self ", self.sizes(), " apart from dimension ", wrapped);
  Tensor out = detail::indexed_copy(copy, self, index);
  return self.dim() == 0 ? out.view({}) : out;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  constexpr const char* op = "index_select";
  detail::impl_of(self, op);
  detail::impl_of(index, op);
  detail::check_same_device(op, self, index);
  if (index.dtype() != kInt64 && index.dtype() != kInt32)
    fail(op, "Expected dtype int32 or int64 for index, but got ", index.dtype());
  if (index.dim() > 1) fail(op, "Index is supposed to be a vector, but got ", index.sizes());
  const int64_t wrapped = detail::wrap_dim(op, dim, self.dim());
  if (self.dim() == 0 && index.numel() != 1)
    fail(op, "Index to scalar can have only 1 value, got ", index.numel(), " value(s)");
  const detail::Dims self_sizes = detail::sizes_at_least_1d(self);
  detail::IndexedCopy copy{op, wrapped, self_sizes[wrapped], self_sizes,
                           detail::strides_at_least_1d(self), {}};
  copy.out_sizes[wrapped] = index.numel();
  copy.index_strides.resize(copy.out_sizes.size(), 0);
  copy.index_strides[wrapped] = index.dim() == 0 ? 0 : index.stride(0);
  Tensor out = detail::indexed_copy(copy, self, index);
  return self.dim() == 0 ? out.view({}) : out;
}

}  // namespace vmap
