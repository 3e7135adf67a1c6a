// The batched API on device tensors: programs of vb:: calls, as rewritten loops make them
// (reductions into C++ scalars and tensors, masked branches, gathers, nested levels), run
// once on CPU inputs and once on the same inputs on the device; the results, brought back,
// must agree. On the emulated backend (always; its device memory is unreadable by the host,
// so a host read in rules/ crashes the test) and on CUDA (skipped without a device).
#include "../cuda/emulated_backend.hpp"
#include "rules_test_util.hpp"

#include <vmap/batched.hpp>
#include <vmap/fused.hpp>
#include <vmap/fused_scalar.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <vector>

namespace vmap {
namespace {

namespace vb = vmap::batched;
using test::Rng;

enum class Backend { emulated, cuda };

class DeviceBatched : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::emulated) {
      detail::register_device_backend(&emulated_);
      return;
    }
    if (!detail::device_available()) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
  }
  void TearDown() override {
    detail::register_device_backend(nullptr);
    if (GetParam() == Backend::emulated)
      EXPECT_GT(emulated_.calls(), 0) << "the program never reached the device backend";
  }

  // `program` on `inputs` (CPU tensors) as they are and moved to the device; what it returns
  // must agree (floats within 1e-4), and on the device it must stay on the device.
  void expect_same_on_device(const std::vector<Tensor>& inputs,
                             const std::function<std::vector<Tensor>(std::vector<Tensor>)>& program,
                             bool results_on_device = true) {
    const std::vector<Tensor> expected = program(inputs);
    std::vector<Tensor> moved;
    for (const Tensor& input : inputs) moved.push_back(input.to(kCUDA));
    const std::vector<Tensor> actual = program(moved);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t k = 0; k < actual.size(); ++k) {
      SCOPED_TRACE("result " + std::to_string(k));
      if (results_on_device) EXPECT_EQ(actual[k].device(), kCUDA);
      test::expect_same(actual[k].to(kCPU), expected[k], false);
    }
  }

  device_testing::EmulatedBackend emulated_;
};

Tensor random(Rng& rng, std::vector<int64_t> sizes, Dtype dtype = kFloat32) {
  return test::random_tensor(rng, sizes, dtype);
}

// `float total += x[i].sum().item<float>()` and an int count under a branch: the examples'
// values are folded on the host in loop order, so they must come over from the device.
TEST_P(DeviceBatched, ReductionsIntoCppScalars) {
  Rng rng(1);
  expect_same_on_device(
      {random(rng, {9, 4})},
      [](std::vector<Tensor> in) {
        const Tensor& x = in[0];
        float total = 0.5f;
        int64_t positives = 0;
        double largest = -1e9;
        {
          vb::Level level(0, x.size(0));
          const vb::Value i = level.index();
          vb::accumulate(total, vb::at(x, i).sum().item<float>(), vb::Reduce::add);
          vb::accumulate(largest, vb::at(x, i)[1].item<double>(), vb::Reduce::max);
          vb::Where branch(vb::at(x, i)[0] > 0);
          vb::accumulate(positives, 1, vb::Reduce::add);
        }
        return std::vector<Tensor>{tensor(total), tensor(positives), tensor(largest)};
      },
      false);
}

// Accumulators that are tensors on the device: a sum, a running max, a masked sum.
TEST_P(DeviceBatched, ReductionsIntoTensors) {
  Rng rng(2);
  expect_same_on_device({random(rng, {7, 3}), zeros({3}), full({3}, -100.0), zeros({})},
                        [](std::vector<Tensor> in) {
                          const Tensor& x = in[0];
                          Tensor sum = in[1].clone(), max = in[2].clone(), masked = in[3].clone();
                          {
                            vb::Level level(0, x.size(0));
                            const vb::Value i = level.index();
                            vb::accumulate(sum, vb::at(x, i), vb::Reduce::add);
                            vb::accumulate(max, vb::at(x, i), vb::Reduce::max);
                            vb::Where branch(vb::at(x, i).sum() > 0);
                            vb::accumulate(masked, vb::at(x, i).sum(), vb::Reduce::add);
                          }
                          return std::vector<Tensor>{sum, max, masked};
                        });
}

// if/else on a per-example condition: both branches run, stores and a rebound local merged.
TEST_P(DeviceBatched, MaskedBranches) {
  Rng rng(3);
  expect_same_on_device({random(rng, {6, 3}), zeros({6, 3}), zeros({6})},
                        [](std::vector<Tensor> in) {
                          const Tensor& x = in[0];
                          Tensor out = in[1].clone(), scales = in[2].clone();
                          vb::Level level(0, x.size(0));
                          const vb::Value i = level.index();
                          vb::Value scale = 1.0f;
                          {
                            vb::Where branch(vb::at(x, i).sum().item<float>() > 0);
                            vb::at(out, i) = vb::at(x, i);
                            scale = 2.0f;
                            branch.flip();
                            vb::at(out, i) = -vb::at(x, i);
                          }
                          vb::at(scales, i) = scale;
                          return std::vector<Tensor>{out, scales};
                        });
}

// Data-dependent reads and writes (gathers and scatters), an index_select per example, and
// indices that only a masked-out example would read out of range.
TEST_P(DeviceBatched, Gathers) {
  Rng rng(4);
  expect_same_on_device(
      {random(rng, {6, 3}), tensor({4, 0, 5, 99}), test::random_index(rng, {4, 2}, 3),
       zeros({4, 3}), zeros({4, 6}), zeros({4, 2})},
      [](std::vector<Tensor> in) {
        const Tensor &table = in[0], &index = in[1], &columns = in[2];
        Tensor out = in[3].clone(), marks = in[4].clone(), picked = in[5].clone();
        vb::Level level(0, 4);
        const vb::Value i = level.index();
        const vb::Value row = vb::at(index, i).item<int64_t>();
        {
          vb::Where guard(row < 6);
          vb::at(out, i) = vb::at(table, row);
          vb::at(vb::at(marks, i), row) = 1.0 + i;
          vb::at(picked, i) = vb::at(table, row).index_select(0, vb::at(columns, i));
        }
        return std::vector<Tensor>{out, marks, picked};
      });
}

// Two levels: distances of every pair, a reduction of the inner level into an outer value,
// and the induction variables as numbers (the upper-triangular mask).
TEST_P(DeviceBatched, NestedLevels) {
  Rng rng(5);
  expect_same_on_device(
      {random(rng, {3, 4}), random(rng, {5, 4}), zeros({3, 5}), zeros({3}), zeros({3, 5}, kBool),
       zeros({3, 5})},
      [](std::vector<Tensor> in) {
        const Tensor &a = in[0], &b = in[1];
        Tensor distances = in[2].clone(), row_max = in[3].clone(), mask = in[4].clone();
        Tensor dots = in[5].clone();
        vb::Level outer(0, a.size(0));
        const vb::Value i = outer.index();
        vb::Value largest = full({}, -10.0, a.device());
        {
          vb::Level inner(0, b.size(0));
          const vb::Value j = inner.index();
          const vb::Value difference = vb::at(a, i) - vb::at(b, j);
          vb::at(vb::at(distances, i), j) = (difference * difference).sum().sqrt();
          vb::accumulate(largest, vb::at(a, i).dot(vb::at(b, j)), vb::Reduce::max);
          vb::at(vb::at(mask, i), j) = j >= i;
          // Note [Dot products over levels]: shared levels (a pending operand), a subset.
          vb::at(vb::at(dots, i), j) = difference.dot(difference) + vb::at(a, i).dot(vb::at(a, i));
        }
        vb::at(row_max, i) = largest;
        return std::vector<Tensor>{distances, row_max, mask, dots};
      });
}

// Note [Pending values on a device]: arithmetic of the induction variables, large enough to
// be pending, stored into a device tensor, masking a store into one, and an operand of a
// device op, is computed on the device: what crosses from the host is a few numbers, not the
// [n, n] values (on CUDA the copies are not counted; the results still must agree).
TEST_P(DeviceBatched, IndexArithmeticOnTheDevice) {
  Rng rng(9);
  const int64_t n = 256;  // n * n elements: past one pending block
  const int64_t copied_before = emulated_.host_to_device_bytes();
  expect_same_on_device(
      {random(rng, {n, n}), zeros({n, n}, kBool), zeros({n, n}), zeros({n, n})},
      [n](std::vector<Tensor> in) {
        const Tensor& x = in[0];
        Tensor mask = in[1].clone(), masked = in[2].clone(), product = in[3].clone();
        vb::Level outer(0, n);
        const vb::Value i = outer.index();
        vb::Level inner(0, n);
        const vb::Value j = inner.index();
        vb::at(vb::at(mask, i), j) = j >= i;
        {
          vb::Where branch(i + j < n);
          vb::at(vb::at(masked, i), j) = 1.5f;
        }
        vb::at(vb::at(product, i), j) = vb::at(vb::at(x, i), j) * (j * 2 - i);
        return std::vector<Tensor>{mask, masked, product};
      });
  if (GetParam() == Backend::emulated) {
    // The inputs moved over (n * n floats, bools and floats thrice), plus index vectors.
    const int64_t inputs = n * n * (4 + 1 + 4 + 4);
    EXPECT_LT(emulated_.host_to_device_bytes() - copied_before, inputs + n * 64);
  }
}

// Note [Pointwise results on a device]: `out[i] = a[i] + b[i]` over device tensors is one call
// of the backend, the add computing into out (before: the add, then a copy into out); a value
// stored into a slot and used again after the slot is overwritten; a store into the slot the
// value reads; a masked store.
TEST_P(DeviceBatched, PointwiseResultsIntoSlots) {
  Rng rng(10);
  const int64_t n = 40000;  // past one pending block
  int64_t add_calls = -1;
  expect_same_on_device(
      {random(rng, {n}), random(rng, {n}), zeros({n}), zeros({n}), zeros({n})},
      [&](std::vector<Tensor> in) {
        const Tensor &a = in[0], &b = in[1];
        Tensor out = in[2].clone(), again = in[3].clone(), masked = in[4].clone();
        vb::Level level(0, n);
        const vb::Value i = level.index();
        const int64_t before = emulated_.calls();
        vb::at(out, i) = vb::at(a, i) + vb::at(b, i);
        if (a.device() != kCPU) add_calls = emulated_.calls() - before;
        const vb::Value product = vb::at(a, i) * vb::at(b, i);
        vb::at(again, i) = product;
        vb::at(again, i) = vb::at(again, i) * vb::at(a, i);
        vb::at(out, i) = vb::at(out, i) - product;
        {
          vb::Where positive(vb::at(a, i) > 0.0f);
          vb::at(masked, i) = vb::at(a, i) - vb::at(b, i);
        }
        return std::vector<Tensor>{out, again, masked};
      });
  if (GetParam() == Backend::emulated) EXPECT_EQ(add_calls, 1);
}

// Note [Deferred results]: a product and a gather large enough to be stored straight into
// their device slots, and the same product used again after its slot is overwritten.
TEST_P(DeviceBatched, DeferredResultsIntoSlots) {
  Rng rng(6);
  expect_same_on_device(
      {random(rng, {2000, 24}), random(rng, {36, 24}), random(rng, {36}),
       test::random_index(rng, {2000, 20}, 24), zeros({2000, 36}), zeros({2000, 20}),
       zeros({2000, 36})},
      [](std::vector<Tensor> in) {
        const Tensor &x = in[0], &weight = in[1], &bias = in[2], &index = in[3];
        Tensor out = in[4].clone(), picked = in[5].clone(), again = in[6].clone();
        vb::Level level(0, x.size(0));
        const vb::Value i = level.index();
        const vb::Value y = vb::linear(vb::at(x, i), weight, bias);
        vb::at(out, i) = y;
        vb::at(picked, i) = vb::gather(vb::at(x, i), 0, vb::at(index, i));
        vb::at(out, i) = vb::at(out, i) * 2;
        vb::at(again, i) = y;
        return std::vector<Tensor>{out, picked, again};
      });
}

// Note [Scalar kernels on a device]: a scalar kernel with its device code runs as one
// compiled kernel where its operands are (on the emulated backend, its host form), over two
// levels, under a live mask, reading elements; results equal the CPU's to the bit.
#define VMAP_TEST_KERNEL(...) vb::DeviceCode{#__VA_ARGS__}, __VA_ARGS__
TEST_P(DeviceBatched, ScalarKernelsRunAsOneKernel) {
  Rng rng(7);
  const int64_t before = emulated_.compiled_kernels();
  expect_same_on_device(
      {random(rng, {24}), random(rng, {16}), random(rng, {16, 5}), zeros({16, 24}, kInt32),
       zeros({16}), zeros({16}, kInt64)},
      [](std::vector<Tensor> in) {
        const Tensor &re = in[0], &im = in[1], &rows = in[2];
        Tensor counts = in[3].clone(), largest = in[4].clone(), found = in[5].clone();
        vb::Level outer(0, im.size(0));
        const vb::Value y = outer.index();
        {
          vb::Level inner(0, re.size(0));
          const vb::Value x = inner.index();
          vb::at(vb::at(counts, y), x) = vb::fused_scalar(
              VMAP_TEST_KERNEL([](float cr, float ci, int max_iter) {
                float zr = 0.0f, zi = 0.0f;
                int k = 0;
                while (k < max_iter && zr * zr + zi * zi < 4.0f) {
                  float next_r = zr * zr - zi * zi + cr;
                  zi = 2.0f * zr * zi + ci;
                  zr = next_r;
                  ++k;
                }
                return k;
              }),
              vb::at(re, x).item<float>(), vb::at(im, y).item<float>(), 50);
        }
        {
          vb::Where positive(vb::at(im, y).item<float>() > 0);
          vb::at(largest, y) = vb::fused_scalar(VMAP_TEST_KERNEL([](vb::Elements row, int64_t n) {
                                                  double m = row[0].item<double>();
                                                  for (int64_t k = 1; k < n; ++k)
                                                    m = std::fmax(m, row[k].item<double>());
                                                  return m;
                                                }),
                                                vb::at(rows, y), rows.size(1));
        }
        vb::at(found, y) = vb::fused_scalar(VMAP_TEST_KERNEL([](vb::Elements row, float t) {
                                              int64_t k = 0;
                                              while (k < 5 && row[k].item<float>() < t) ++k;
                                              return k;
                                            }),
                                            vb::at(rows, y), 0.25f);
        return std::vector<Tensor>{counts, largest, found};
      });
  if (GetParam() == Backend::emulated) EXPECT_EQ(emulated_.compiled_kernels() - before, 3);
}

// An element read out of range stops its example on the device; the error is the CPU's, that
// of the first example in loop order.
TEST_P(DeviceBatched, ScalarKernelErrorsAreTheCpusErrors) {
  const Tensor rows = arange(12).to(kFloat32).reshape({4, 3});
  const Tensor picks = tensor({1, 2, 7, 9});
  const auto run = [&](const Tensor& r, const Tensor& p) {
    Tensor out = zeros({4}, TensorOptions(kFloat32).device(r.device()));
    vb::Level level(0, 4);
    const vb::Value i = level.index();
    vb::at(out, i) = vb::fused_scalar(
        VMAP_TEST_KERNEL([](vb::Elements row, int64_t k) { return row[k].item<float>(); }),
        vb::at(r, i), vb::at(p, i).item<int64_t>());
    return out;
  };
  std::string expected;
  try {
    run(rows, picks);
  } catch (const Error& error) {
    expected = error.what();
  }
  EXPECT_NE(expected.find("index 7 out of range"), std::string::npos) << expected;
  try {
    run(rows.to(kCUDA), picks.to(kCUDA));
    ADD_FAILURE() << "no error on the device";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), expected);
  }
}
// Note [Fused kernels on a device]: a store, a sum, a mean and a norm of compiled fused
// kernels, with a number among the operands, over one and two levels, float32 and float64,
// examples of 40 elements: each one launch of its device program (on the
// emulated backend, its host form).
TEST_P(DeviceBatched, FusedKernelsRunAsOneKernel) {
  Rng rng(8);
  const int64_t before = emulated_.compiled_kernels();
  expect_same_on_device(
      {random(rng, {20, 40}), random(rng, {30, 40}), random(rng, {20, 40}, kFloat64),
       zeros({20, 30}), zeros({20, 40}), zeros({20}, kFloat64), zeros({20, 30})},
      [](std::vector<Tensor> in) {
        const Tensor &x = in[0], &y = in[1], &w = in[2];
        Tensor distances = in[3].clone(), blended = in[4].clone(), gaps = in[5].clone(),
               norms = in[6].clone();
        vb::Level outer(0, x.size(0));
        const vb::Value i = outer.index();
        {
          vb::Level inner(0, y.size(0));
          const vb::Value j = inner.index();
          vb::at(vb::at(distances, i), j) =
              vb::fused(VMAP_TEST_KERNEL([](const auto& a, const auto& b) { return (a - b).pow(2); }),
                        vb::at(x, i), vb::at(y, j))
                  .sum()
                  .sqrt();
          vb::at(vb::at(norms, i), j) =
              vb::fused(VMAP_TEST_KERNEL([](const auto& c, const auto& d) { return c - d; }),
                        vb::at(x, i), vb::at(y, j))
                  .norm();
        }
        vb::at(blended, i) = vb::fused(
            VMAP_TEST_KERNEL([](const auto& a, const auto& b) { return (a * 0.25 + b * 0.75).relu(); }),
            vb::at(x, i), vb::at(y, 3));
        vb::at(gaps, i) = vb::fused(VMAP_TEST_KERNEL([](const auto& a, const auto& margin) {
                                      return a.abs().clamp(0.0, margin);
                                    }),
                                    vb::at(w, i), 0.5)
                              .mean();
        return std::vector<Tensor>{distances, blended, gaps, norms};
      });
  if (GetParam() == Backend::emulated) EXPECT_EQ(emulated_.compiled_kernels() - before, 4);
}

// Note [Staged tiles on a device]: sums over tiles of two level dims stage the rows the tile's
// threads share, a chunk of each example at a time; tiles cut by the edges (20 x 30 of 16 x 16),
// examples of 40 elements (a chunk and a part), of two dims, an operand with a row per position
// (read as it is), a level outside the tile, numbers and a mean.
TEST_P(DeviceBatched, TiledSumsStageTheRowsThreadsShare) {
  Rng rng(9);
  const int64_t before = emulated_.compiled_kernels();
  expect_same_on_device(
      {random(rng, {20, 40}), random(rng, {30, 40}), random(rng, {20, 30, 40}),
       random(rng, {20, 5, 8}), random(rng, {30, 5, 8}), random(rng, {3, 20, 40}, kFloat64),
       random(rng, {30, 40}, kFloat64), zeros({20, 30}), zeros({20, 30}), zeros({3, 20, 30},
       kFloat64)},
      [](std::vector<Tensor> in) {
        const Tensor &x = in[0], &y = in[1], &z = in[2], &x2 = in[3], &y2 = in[4],
                     &x3 = in[5], &y3 = in[6];
        Tensor weighted = in[7].clone(), squares = in[8].clone(), outer = in[9].clone();
        {
          vb::Level rows(0, x.size(0));
          const vb::Value i = rows.index();
          vb::Level columns(0, y.size(0));
          const vb::Value j = columns.index();
          vb::at(vb::at(weighted, i), j) =
              vb::fused(VMAP_TEST_KERNEL([](const auto& a, const auto& b, const auto& c,
                                            const auto& scale) { return (a - b) * c * scale; }),
                        vb::at(x, i), vb::at(y, j), vb::at(vb::at(z, i), j), 0.5)
                  .sum();
          vb::at(vb::at(squares, i), j) =
              vb::fused(VMAP_TEST_KERNEL([](const auto& a, const auto& b) { return (a - b).pow(2); }),
                        vb::at(x2, i), vb::at(y2, j))
                  .mean();
        }
        vb::Level blocks(0, x3.size(0));
        const vb::Value k = blocks.index();
        vb::Level rows(0, x3.size(1));
        const vb::Value i = rows.index();
        vb::Level columns(0, y3.size(0));
        const vb::Value j = columns.index();
        vb::at(vb::at(vb::at(outer, k), i), j) =
            vb::fused(VMAP_TEST_KERNEL([](const auto& a, const auto& b) { return a * b; }),
                      vb::at(vb::at(x3, k), i), vb::at(y3, j))
                .sum();
        return std::vector<Tensor>{weighted, squares, outer};
      });
  if (GetParam() == Backend::emulated) EXPECT_EQ(emulated_.compiled_kernels() - before, 3);
}

#undef VMAP_TEST_KERNEL

INSTANTIATE_TEST_SUITE_P(Backends, DeviceBatched,
                         ::testing::Values(Backend::emulated, Backend::cuda), [](const auto& info) {
                           return info.param == Backend::emulated ? "emulated" : "cuda";
                         });

}  // namespace
}  // namespace vmap
