// Matrix products: matmul (LibTorch's rank rules), mm, mv, bmm, dot and linear all reduce to
// one batched product [batch..., M, K] @ [batch..., K, N]. Floats go to OpenBLAS, one call
// per batch matrix (or one call for all when the batch folds into the rows); integers and
// tiny matrices use a plain loop, threaded over the batch.
#include "internal.hpp"
#include "../cuda/device_ops.hpp"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

namespace vmap {
namespace detail {
namespace {

// Products at most this many multiply-adds per matrix skip BLAS (call overhead dominates).
constexpr int64_t small_product = 512;

// A strided matrix in elements.
struct MatrixLayout {
  int64_t rows, cols, row_stride, col_stride;
};

// How BLAS reads a matrix in row-major order: as stored (NoTrans) or transposed, with a
// leading dimension. None when the strides fit neither (the operand is copied first).
struct BlasOperand {
  CBLAS_TRANSPOSE trans;
  int64_t ld;
};

std::optional<BlasOperand> blas_operand(const MatrixLayout& m) {
  const int64_t cols = std::max<int64_t>(m.cols, 1), rows = std::max<int64_t>(m.rows, 1);
  if ((m.col_stride == 1 || m.cols == 1) && (m.rows == 1 || m.row_stride >= cols))
    return BlasOperand{CblasNoTrans, m.rows == 1 ? cols : m.row_stride};
  if ((m.row_stride == 1 || m.rows == 1) && (m.cols == 1 || m.col_stride >= rows))
    return BlasOperand{CblasTrans, m.cols == 1 ? rows : m.col_stride};
  return std::nullopt;
}

MatrixLayout last_two(const Tensor& t) {
  const int64_t r = t.dim();
  return {t.size(r - 2), t.size(r - 1), t.stride(r - 2), t.stride(r - 1)};
}

// The increment of a vector that BLAS reads (a [K, 1] or [1, K] matrix with a BLAS layout).
int64_t vector_increment(int64_t length, int64_t stride) { return length == 1 ? 1 : stride; }

void check_blas_int(const char* op, int64_t value) {
  if (value > INT_MAX) fail(op, "matrix dimension ", value, " exceeds the BLAS integer range");
}

// The BLAS routines of one element type.
template <class T>
struct Blas;
template <>
struct Blas<float> {
  static constexpr auto gemv = cblas_sgemv;
  static constexpr auto gemm = cblas_sgemm;
};
template <>
struct Blas<double> {
  static constexpr auto gemv = cblas_dgemv;
  static constexpr auto gemm = cblas_dgemm;
};

// c[m, n] (contiguous) = a[m, k] @ b[k, n] + beta * c, both with BLAS layouts. k >= 1,
// m, n >= 1; beta 0 or 1.
template <class T>
void blas_product(const T* a, const MatrixLayout& a_layout, const T* b,
                  const MatrixLayout& b_layout, T* c, int64_t m, int64_t n, int64_t k, T beta) {
  const BlasOperand a_op = *blas_operand(a_layout), b_op = *blas_operand(b_layout);
  const auto flip = [](CBLAS_TRANSPOSE t) { return t == CblasNoTrans ? CblasTrans : CblasNoTrans; };
  if (n == 1) {  // c = a @ b_column
    const int64_t inc = vector_increment(k, b_layout.row_stride);
    if (a_op.trans == CblasNoTrans)
      Blas<T>::gemv(CblasRowMajor, CblasNoTrans, m, k, T(1), a, a_op.ld, b, inc, beta, c, 1);
    else
      Blas<T>::gemv(CblasRowMajor, CblasTrans, k, m, T(1), a, a_op.ld, b, inc, beta, c, 1);
    return;
  }
  if (m == 1) {  // c = b^T @ a_row
    const int64_t inc = vector_increment(k, a_layout.col_stride);
    if (b_op.trans == CblasNoTrans)
      Blas<T>::gemv(CblasRowMajor, flip(b_op.trans), k, n, T(1), b, b_op.ld, a, inc, beta, c, 1);
    else
      Blas<T>::gemv(CblasRowMajor, flip(b_op.trans), n, k, T(1), b, b_op.ld, a, inc, beta, c, 1);
    return;
  }
  Blas<T>::gemm(CblasRowMajor, a_op.trans, b_op.trans, m, n, k, T(1), a, a_op.ld, b, b_op.ld,
                beta, c, n);
}

// Integer products wrap around on overflow (as LibTorch's), without signed-overflow UB.
template <class T>
T multiply_add(T acc, T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(acc) + static_cast<U>(x) * static_cast<U>(y));
  } else {
    return acc + x * y;
  }
}

// c[m, n] (contiguous) = a[m, k] @ b[k, n] for any strides; added to c with `accumulate`.
template <class T>
void loop_product(const T* a, const MatrixLayout& a_layout, const T* b,
                  const MatrixLayout& b_layout, T* c, int64_t m, int64_t n, int64_t k,
                  bool accumulate) {
  if (!accumulate) std::fill(c, c + m * n, T{});
  for (int64_t i = 0; i < m; ++i) {
    T* c_row = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      const T a_ip = a[i * a_layout.row_stride + p * a_layout.col_stride];
      const T* b_row = b + p * b_layout.row_stride;
      if (b_layout.col_stride == 1) {
        for (int64_t j = 0; j < n; ++j) c_row[j] = multiply_add(c_row[j], a_ip, b_row[j]);
      } else {
        for (int64_t j = 0; j < n; ++j)
          c_row[j] = multiply_add(c_row[j], a_ip, b_row[j * b_layout.col_stride]);
      }
    }
  }
}

// Element offset of batch position `flat` in a tensor whose leading `batch_rank` dims are
// `batch_sizes` (row-major) with `strides`.
int64_t batch_offset(int64_t flat, IntList batch_sizes, IntList strides) {
  int64_t offset = 0;
  for (int64_t d = static_cast<int64_t>(batch_sizes.size()) - 1; d >= 0; --d) {
    offset += flat % batch_sizes[d] * strides[d];
    flat /= batch_sizes[d];
  }
  return offset;
}

// Whether a [batch..., M, K] operand's batch dims and rows walk memory as one row axis, so
// the whole batch is a single [batch * M, K] matrix.
bool batch_folds_into_rows(const Tensor& a) {
  const int64_t rank = a.dim();
  int64_t expected = a.size(rank - 2) * a.stride(rank - 2);
  for (int64_t d = rank - 3; d >= 0; --d) {
    if (a.size(d) == 1) continue;
    if (a.stride(d) != expected) return false;
    expected *= a.size(d);
  }
  return true;
}

bool batch_is_broadcast(const Tensor& b) {
  for (int64_t d = 0; d + 2 < b.dim(); ++d)
    if (b.size(d) != 1 && b.stride(d) != 0) return false;
  return true;
}

// a [batch..., M, K] @ b [batch..., K, N] with equal batch shapes (possibly expanded views)
// into `out`, contiguous [batch..., M, N] and overlapping neither; added to what it holds with
// `accumulate` (BLAS beta 1, as addmm).
template <class T>
void batched_product(const char* op, Tensor a, Tensor b, const Tensor& out, bool accumulate) {
  const int64_t rank = a.dim();
  const int64_t m = a.size(rank - 2), k = a.size(rank - 1), n = b.size(rank - 1);
  const int64_t batch = m * n == 0 ? 0 : out.numel() / (m * n);
  if (out.numel() == 0) return;
  if (k == 0) {
    if (!accumulate) out.zero_();
    return;
  }

  constexpr bool use_blas = std::is_floating_point_v<T>;
  const bool small = m * n * k <= small_product;
  if (use_blas && !small) {
    for (int64_t extent : {m, n, k}) check_blas_int(op, extent);
    // Operands BLAS cannot read are copied once for the whole batch.
    if (!blas_operand(last_two(a))) a = a.contiguous();
    if (!blas_operand(last_two(b))) b = b.contiguous();
  }
  const IntList batch_sizes(a.sizes().data(), static_cast<size_t>(rank - 2));
  const MatrixLayout a_layout = last_two(a), b_layout = last_two(b);
  const T* a_data = impl_of(a).data_as<T>();
  const T* b_data = impl_of(b).data_as<T>();
  T* out_data = impl_of(out).data_as<T>();

  if (!use_blas || small) {
    parallel_for(batch, m * n * k, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        loop_product(a_data + batch_offset(i, batch_sizes, a.strides()), a_layout,
                     b_data + batch_offset(i, batch_sizes, b.strides()), b_layout,
                     out_data + i * m * n, m, n, k, accumulate);
    });
    return;
  }
  if constexpr (use_blas) {
    const T beta = accumulate ? T(1) : T(0);
    // x @ W^T for a stack of x rows: one GEMM (the case `linear` and batched vectors hit).
    if (batch > 1 && batch_is_broadcast(b) && batch_folds_into_rows(a) &&
        a_layout.col_stride == 1 && a_layout.row_stride >= std::max<int64_t>(k, 1)) {
      check_blas_int(op, batch * m);
      const MatrixLayout folded{batch * m, k, a_layout.row_stride, 1};
      blas_product(a_data, folded, b_data, b_layout, out_data, batch * m, n, k, beta);
      return;
    }
    for (int64_t i = 0; i < batch; ++i)
      blas_product(a_data + batch_offset(i, batch_sizes, a.strides()), a_layout,
                   b_data + batch_offset(i, batch_sizes, b.strides()), b_layout,
                   out_data + i * m * n, m, n, k, beta);
  }
}

void check_operands(const char* op, const Tensor& a, const Tensor& b) {
  impl_of(a, op);
  impl_of(b, op);
  check_same_device(op, a, b);
  if (a.dtype() != b.dtype())
    fail(op, "expected both operands to have the same dtype, but got ", a.dtype(), " and ",
         b.dtype());
  if (a.dtype() == kBool) fail(op, "not implemented for 'Bool'");
}

void check_inner(const char* op, const Tensor& a, const Tensor& b, int64_t a_cols,
                 int64_t b_rows) {
  if (a_cols != b_rows)
    fail(op, "shapes ", a.sizes(), " and ", b.sizes(), " cannot be multiplied (", a_cols,
         " vs ", b_rows, ")");
}

// The product of a [batch..., M, K] and b [batch..., K, N] after checks (batches equal) into
// `out`, contiguous [batch..., M, N] and overlapping neither; added to it with `accumulate`.
void product_into(const char* op, const Tensor& a, const Tensor& b, const Tensor& out,
                  bool accumulate = false) {
  if (a.device() != kCPU) return device_product(op, a, b, out, accumulate);
  visit_dtype(a.dtype(), [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_same_v<T, bool>) __builtin_unreachable();
    else batched_product<T>(op, a, b, out, accumulate);
  });
}

Dims product_sizes(const Tensor& a, const Tensor& b) {
  Dims sizes(a.sizes());
  sizes.back() = b.size(-1);
  return sizes;
}

// The product in a new tensor, or in the live ResultInto's destination (Note [Results into a
// destination] in tensor.hpp).
Tensor product(const char* op, const Tensor& a, const Tensor& b) {
  const Tensor out = result_tensor(op, product_sizes(a, b), a.dtype(), a.device(), {&a, &b});
  product_into(op, a, b, out);
  return out;
}

}  // namespace
}  // namespace detail

using detail::fail;

Tensor mm(const Tensor& self, const Tensor& other) {
  detail::check_operands("mm", self, other);
  if (self.dim() != 2 || other.dim() != 2)
    fail("mm", "expected 2-D tensors, but got ", self.sizes(), " and ", other.sizes());
  detail::check_inner("mm", self, other, self.size(1), other.size(0));
  return detail::product("mm", self, other);
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  detail::check_operands("mv", self, vec);
  if (self.dim() != 2 || vec.dim() != 1)
    fail("mv", "expected a 2-D matrix and a 1-D vector, but got ", self.sizes(), " and ",
         vec.sizes());
  detail::check_inner("mv", self, vec, self.size(1), vec.size(0));
  return detail::product("mv", self, vec.unsqueeze(1)).squeeze(1);
}

Tensor bmm(const Tensor& self, const Tensor& other) {
  detail::check_operands("bmm", self, other);
  if (self.dim() != 3 || other.dim() != 3)
    fail("bmm", "expected 3-D tensors, but got ", self.sizes(), " and ", other.sizes());
  if (self.size(0) != other.size(0))
    fail("bmm", "batch sizes must match, but got ", self.sizes(), " and ", other.sizes());
  detail::check_inner("bmm", self, other, self.size(2), other.size(1));
  return detail::product("bmm", self, other);
}

Tensor dot(const Tensor& self, const Tensor& other) {
  detail::check_operands("dot", self, other);
  if (self.dim() != 1 || other.dim() != 1)
    fail("dot", "1D tensors expected, but got ", self.dim(), "D and ", other.dim(), "D tensors");
  if (self.size(0) != other.size(0))
    fail("dot", "inconsistent tensor size, expected tensors ", self.sizes(), " and ",
         other.sizes(), " to have the same number of elements");
  return detail::product("dot", self.unsqueeze(0), other.unsqueeze(1)).view({});
}

Tensor matmul(const Tensor& self, const Tensor& other) {
  detail::check_operands("matmul", self, other);
  const int64_t a_rank = self.dim(), b_rank = other.dim();
  if (a_rank == 0 || b_rank == 0)
    fail("matmul", "both arguments to matmul need to be at least 1D, but they are ", a_rank,
         "D and ", b_rank, "D");
  // Checked here, not in dot/mv/mm, so that the error names matmul.
  detail::check_inner("matmul", self, other, self.size(-1), other.size(b_rank == 1 ? 0 : -2));
  if (a_rank == 1 && b_rank == 1) return dot(self, other);
  if (a_rank == 2 && b_rank == 1) return mv(self, other);
  if (a_rank == 2 && b_rank == 2) return detail::product("matmul", self, other);
  // Vectors become matrices ([K] -> [1, K] on the left, [K, 1] on the right), batch dims
  // broadcast, and the added dims are dropped from the result.
  const Tensor a = a_rank == 1 ? self.unsqueeze(0) : self;
  const Tensor b = b_rank == 1 ? other.unsqueeze(1) : other;
  const detail::IntList a_batch(a.sizes().data(), a.dim() - 2);
  const detail::IntList b_batch(b.sizes().data(), b.dim() - 2);
  std::vector<int64_t> shape =
      detail::IntList(detail::broadcast_shapes("matmul", a_batch, b_batch)).vec();
  const size_t batch_rank = shape.size();
  shape.insert(shape.end(), {a.size(-2), a.size(-1)});
  const Tensor a_expanded = a.expand(shape);
  shape[batch_rank] = b.size(-2);
  shape[batch_rank + 1] = b.size(-1);
  Tensor out = detail::product("matmul", a_expanded, b.expand(shape));
  if (b_rank == 1) out = out.squeeze(-1);
  if (a_rank == 1) out = out.squeeze(-2);
  return out;
}

// x @ W^T (+ b) as one product over x's rows, [rows, K] @ [K, N], into the result: the live
// ResultInto's destination when it fits and overlaps no operand (Note [Results into a
// destination] in tensor.hpp). As LibTorch's addmm: the bias is copied into the result and the
// GEMM adds to it (beta 1): one pass over the result fewer than a GEMM and then `+= bias`
// ([10000, 256] @ [256, 256] on OpenBLAS, 1 thread: 11.0 ms, as the GEMM alone, vs 12.3 ms).
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  detail::check_operands("linear", input, weight);
  if (weight.dim() != 1 && weight.dim() != 2)
    fail("linear", "weight must be 1-D or 2-D, but got ", weight.sizes());
  const Tensor weight_t = weight.dim() == 2 ? weight.t() : weight.unsqueeze(1);  // [K, N]
  if (input.dim() == 0) return matmul(input, weight_t);  // matmul's error
  const int64_t inner = input.size(-1);
  detail::check_inner("linear", input, weight_t, inner, weight_t.size(0));
  std::vector<int64_t> sizes(input.sizes().begin(), input.sizes().end() - 1);
  const int64_t rows = detail::checked_numel("linear", sizes);
  if (weight.dim() == 2) sizes.push_back(weight.size(0));
  const bool has_bias = bias && bias->defined();
  if (has_bias && bias->dtype() != input.dtype())
    fail("linear", "expected bias of dtype ", input.dtype(), ", but got ", bias->dtype());
  if (has_bias && !detail::broadcastable_to(bias->sizes(), sizes))
    fail("linear", "bias of shape ", bias->sizes(), " does not broadcast to the output shape ",
         detail::IntList(sizes));
  const Tensor out = detail::result_tensor("linear", sizes, input.dtype(), input.device(),
                                           {&input, &weight, has_bias ? &*bias : nullptr});
  if (has_bias) out.copy_(*bias);
  detail::product_into("linear", input.reshape({rows, inner}), weight_t,
                       out.view({rows, weight_t.size(1)}), /*accumulate=*/has_bias);
  return out;
}

}  // namespace vmap
