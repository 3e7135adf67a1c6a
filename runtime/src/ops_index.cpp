// gather and index_select: one indexed-copy kernel. For every output position p,
//   out[p] = self[p with p[dim] replaced by index[p . index_strides]]
// where gather's index has the output's shape and index_select's index varies along `dim`
// only (stride 0 elsewhere). Indices are bounds-checked; nothing is read out of range.
#include "internal.hpp"
#include "../cuda/device_ops.hpp"

#include <algorithm>
#include <atomic>
#include <climits>

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
  int64_t named_dim;   // the dim an out-of-range message names (the caller's, before batching)
};

// out[r * count + j] = source[r * source_stride + index[r * index_stride + j]] for `rows`
// rows of `count` picks; nonzero when an index is outside [0, limit) (it reads the row's
// element 0 instead). Float rows with int64 indices are one simd_pick call for all the rows,
// which checks them with vectors.
template <class T, class Index>
uint64_t pick_rows(T* out, const T* source, int64_t source_stride, const Index* index,
                   int64_t index_stride, int64_t rows, int64_t count, int64_t limit) {
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Index, int64_t>)
    if (limit <= INT32_MAX)
      return simd_pick(dtype_of<T>, out, source, source_stride, index, index_stride, rows, count,
                       limit);
  uint64_t out_of_range = 0;
  for (int64_t r = 0; r < rows; ++r, out += count, source += source_stride, index += index_stride)
    for (int64_t j = 0; j < count; ++j) {
      const uint64_t i = static_cast<uint64_t>(static_cast<int64_t>(index[j]));
      const uint64_t safe = i < static_cast<uint64_t>(limit) ? i : 0;
      out_of_range |= i ^ safe;  // nonzero iff i is out of range (0 always is in range)
      out[j] = source[safe];
    }
  return out_of_range;
}

// The copy, checking each index as it is used: an index outside [0, dim_size) (the unsigned
// compare also catches negatives) reads element 0 instead and makes the result false, and
// the caller throws. Rows (runs along the output's last dim) are split over threads; each
// chunk finds its first row's position once and then steps row to row (picks along the
// last dim, a run of rows at a time).
template <class T, class Index>
bool run_indexed_copy(const IndexedCopy& copy, const T* self, const Index* index, T* out) {
  const int64_t rank = static_cast<int64_t>(copy.out_sizes.size());
  const int64_t last = rank - 1, dim = copy.dim;
  const int64_t row = copy.out_sizes[last];
  int64_t numel = 1;
  for (int64_t size : copy.out_sizes) numel *= size;
  if (numel == 0) return true;
  if (copy.dim_size == 0) return false;  // no index is in range (and element 0 does not exist)
  const uint64_t limit = static_cast<uint64_t>(copy.dim_size);
  const int64_t dim_stride = copy.self_strides[dim];
  const int64_t self_step = copy.self_strides[last], index_step = copy.index_strides[last];
  std::atomic<bool> in_range{true};
  parallel_for(numel / row, row, [&](int64_t begin, int64_t end) {
    std::array<int64_t, max_dims> position{};
    int64_t self_offset = 0, index_offset = 0;  // of row `r`, the gathered dim left out
    for (int64_t d = last - 1, rest = begin; d >= 0; --d) {
      position[d] = rest % copy.out_sizes[d];
      rest /= copy.out_sizes[d];
      index_offset += position[d] * copy.index_strides[d];
      if (d != dim) self_offset += position[d] * copy.self_strides[d];
    }
    // 0 for an index in range, else the index itself (nonzero, as 0 is always in range).
    const auto checked = [limit](Index i) -> uint64_t {
      const uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(i));
      return u < limit ? 0 : u;
    };
    // Moves the position `count` rows on, staying inside the dim before the last but at the
    // last row (an odometer over the dims before the last).
    const auto advance = [&](int64_t count) {
      if (last > 0) {
        position[last - 1] += count - 1;
        index_offset += (count - 1) * copy.index_strides[last - 1];
        self_offset += (count - 1) * copy.self_strides[last - 1];
      }
      for (int64_t d = last - 1; d >= 0; --d) {
        index_offset += copy.index_strides[d];
        if (d != dim) self_offset += copy.self_strides[d];
        if (++position[d] < copy.out_sizes[d]) break;
        index_offset -= position[d] * copy.index_strides[d];
        if (d != dim) self_offset -= position[d] * copy.self_strides[d];
        position[d] = 0;
      }
    };
    const bool picks_from_rows = last == dim && index_step == 1 && dim_stride == 1;
    uint64_t out_of_range = 0;
    for (int64_t r = begin; r < end;) {
      T* out_row = out + r * row;
      const Index* row_index = index + index_offset;
      const T* source = self + self_offset;
      if (picks_from_rows) {  // the rows along the dim before the last in one call
        const int64_t rows =
            last == 0 ? 1 : std::min(end - r, copy.out_sizes[last - 1] - position[last - 1]);
        out_of_range |=
            pick_rows(out_row, source, last == 0 ? 0 : copy.self_strides[last - 1], row_index,
                      last == 0 ? 0 : copy.index_strides[last - 1], rows, row, copy.dim_size);
        advance(rows);
        r += rows;
        continue;
      }
      if (last != dim && index_step == 0) {  // one index for the whole row: a row copy
        out_of_range |= checked(row_index[0]);
        if (out_of_range == 0) {
          source += row_index[0] * dim_stride;
          if (self_step == 1) std::memcpy(out_row, source, static_cast<size_t>(row) * sizeof(T));
          else for (int64_t j = 0; j < row; ++j) out_row[j] = source[j * self_step];
        }
      } else {
        const int64_t step = last == dim ? 0 : self_step;
        for (int64_t j = 0; j < row; ++j) {
          const Index i = row_index[j * index_step];
          const uint64_t bad = checked(i);
          out_of_range |= bad;
          out_row[j] = source[j * step + (bad ? 0 : i) * dim_stride];
        }
      }
      advance(1);
      ++r;
    }
    if (out_of_range != 0) in_range.store(false, std::memory_order_relaxed);
  });
  return in_range.load(std::memory_order_relaxed);
}

// Names the first out-of-range index (in row-major order of the index tensor).
template <class Index>
[[noreturn]] void fail_out_of_range(const IndexedCopy& copy, const Tensor& index) {
  const Tensor values = index.contiguous();
  const Index* data = impl_of(values).data_as<Index>();
  for (int64_t k = 0; k < values.numel(); ++k)
    if (data[k] < 0 || data[k] >= copy.dim_size)
      fail(copy.op, "index ", data[k], " out of range for dim ", copy.named_dim, " of size ",
           copy.dim_size);
  fail(copy.op, "index out of range for dim ", copy.named_dim, " of size ", copy.dim_size);
}

// Into the live ResultInto's destination when it fits (Note [Results into a destination] in
// tensor.hpp).
Tensor indexed_copy(const IndexedCopy& copy, const Tensor& self, const Tensor& index) {
  Tensor out = result_tensor(copy.op, copy.out_sizes, self.dtype(), self.device(), {&self, &index});
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
  detail::IndexedCopy copy{op,
                           wrapped,
                           0,
                           detail::sizes_at_least_1d(index),
                           detail::strides_at_least_1d(self),
                           detail::strides_at_least_1d(index),
                           wrapped};
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
  detail::IndexedCopy copy{
      op, wrapped, self_sizes[wrapped], self_sizes, detail::strides_at_least_1d(self), {}, wrapped};
  copy.out_sizes[wrapped] = index.numel();
  copy.index_strides.resize(copy.out_sizes.size(), 0);
  copy.index_strides[wrapped] = index.dim() == 0 ? 0 : index.stride(0);
  Tensor out = detail::indexed_copy(copy, self, index);
  return self.dim() == 0 ? out.view({}) : out;
}

// One indexed copy for all examples, with index_select's messages (Note [Batched
// index_select] in tensor.hpp): index [B, k] varies along dims 0 and `dim` of the output.
Tensor detail::index_select_each(const Tensor& self, int64_t dim, const Tensor& index) {
  constexpr const char* op = "index_select";
  impl_of(self, op);
  impl_of(index, op);
  check_same_device(op, self, index);
  if (index.dtype() != kInt64 && index.dtype() != kInt32)
    fail(op, "Expected dtype int32 or int64 for index, but got ", index.dtype());
  if (self.dim() < 2 || dim < 1 || dim >= self.dim() || index.dim() != 2 ||
      index.size(0) != self.size(0))
    fail(op, "expected a batch of inputs and one of index vectors along dim ", dim, ", got ",
         self.sizes(), " and ", index.sizes());
  IndexedCopy copy{op, dim, self.size(dim), self.sizes(), self.strides(), {}, dim - 1};
  copy.out_sizes[dim] = index.size(1);
  copy.index_strides.resize(copy.out_sizes.size(), 0);
  copy.index_strides[0] = index.stride(0);
  copy.index_strides[dim] = index.stride(1);
  return indexed_copy(copy, self, index);
}

}  // namespace vmap
