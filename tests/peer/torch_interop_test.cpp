// LibTorch tensors in and out through DLPack (at::toDLPack / at::fromDLPack with
// vmap::from_dlpack / to_dlpack): the same memory on both sides, deleters run once, a batched
// computation whose result LibTorch reads without a copy, and LibTorch's own answer to check it.
#include <vmap/dlpack.hpp>
#include <vmap/vmap.hpp>

#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>

#include <gtest/gtest.h>

#include <vector>

namespace {

vmap::Tensor from_torch(const at::Tensor& tensor) { return vmap::from_dlpack(at::toDLPack(tensor)); }
at::Tensor to_torch(const vmap::Tensor& tensor) { return at::fromDLPack(vmap::to_dlpack(tensor)); }

// What a user's per-example loop computes, for example b: relu(x[b] @ w + bias) scaled by the
// example's weight; written once per example and once batched (what clang-vmap emits for it).
vmap::Tensor score_batched(const vmap::Tensor& x, const vmap::Tensor& w, const vmap::Tensor& bias,
                           const vmap::Tensor& weights) {
  return vmap::relu(vmap::matmul(x, w) + bias) * weights.unsqueeze(1);
}

TEST(TorchInterop, TorchTensorsInBatchedComputationTorchTensorOut) {
  at::manual_seed(0);
  const at::Tensor x = at::randn({8, 5});
  const at::Tensor w = at::randn({5, 3});
  const at::Tensor bias = at::randn({3});
  const at::Tensor weights = at::rand({8});

  const vmap::Tensor vx = from_torch(x);
  EXPECT_EQ(vx.raw_data(), x.data_ptr());  // no copy in
  const vmap::Tensor result =
      score_batched(vx, from_torch(w), from_torch(bias), from_torch(weights));
  const at::Tensor out = to_torch(result);
  EXPECT_EQ(out.data_ptr(), result.raw_data());  // no copy out
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{8, 3}));
  EXPECT_EQ(out.scalar_type(), at::kFloat);

  const at::Tensor expected = at::relu(at::matmul(x, w) + bias) * weights.unsqueeze(1);
  EXPECT_TRUE(at::allclose(out, expected, 1e-5, 1e-6));
  // The same per example, as the loop as written runs it.
  for (int64_t b = 0; b < 8; ++b) {
    const vmap::Tensor one = vmap::relu(vmap::matmul(vx[b], from_torch(w)) + from_torch(bias)) *
                             from_torch(weights)[b];
    EXPECT_TRUE(at::allclose(to_torch(one), out[b], 1e-5, 1e-6)) << "example " << b;
  }
}

TEST(TorchInterop, WritesOnEitherSideAreSeenByTheOther) {
  const at::Tensor x = at::zeros({2, 3}, at::kDouble);
  vmap::Tensor view = from_torch(x);
  view[1] += 2.5;  // into LibTorch's memory
  EXPECT_EQ(x[1][2].item<double>(), 2.5);
  const vmap::Tensor ours = vmap::zeros({4}, vmap::kI64);
  const at::Tensor theirs = to_torch(ours);
  theirs.fill_(7);
  EXPECT_EQ(ours[3].item<int64_t>(), 7);
}

TEST(TorchInterop, DeletersRunOnceWhenTheLastUserDies) {
  // LibTorch's capsule holds a reference to the tensor until our storage dies.
  at::Tensor x = at::ones({16});
  vmap::Tensor view = from_torch(x).narrow(0, 4, 8);
  EXPECT_EQ(x.use_count(), 2);
  const void* data = x.data_ptr();
  x = at::Tensor();
  EXPECT_EQ(view.sum().item<float>(), 8.f);  // LibTorch's memory is still there
  EXPECT_EQ(view.raw_data(), static_cast<const float*>(data) + 4);

  // Ours: a tensor LibTorch holds keeps our storage alive, and gives it back when it dies.
  vmap::Tensor ours = vmap::arange(6, vmap::kF32);
  at::Tensor theirs = to_torch(ours);
  ours = vmap::Tensor();
  EXPECT_EQ(theirs.sum().item<float>(), 15.f);
  // Through both: a torch tensor seen by us, handed back to torch, and released by torch last.
  at::Tensor source = at::arange(4, at::kLong);
  at::Tensor again = to_torch(from_torch(source));
  EXPECT_EQ(again.data_ptr(), source.data_ptr());
  EXPECT_EQ(source.use_count(), 2);
  again = at::Tensor();
  EXPECT_EQ(source.use_count(), 1);
}

TEST(TorchInterop, DtypesStridesAndOffsets) {
  const at::ScalarType torch_types[] = {at::kFloat, at::kDouble, at::kInt, at::kLong};
  const vmap::Dtype ours[] = {vmap::kF32, vmap::kF64, vmap::kI32, vmap::kI64};
  for (int k = 0; k < 4; ++k) {
    // A transposed slice with an offset: strides and the first element's address carry over.
    const at::Tensor base = at::arange(24).reshape({4, 6}).to(torch_types[k]);
    const at::Tensor slice = base.slice(0, 1, 4).t();
    const vmap::Tensor view = from_torch(slice);
    EXPECT_EQ(view.dtype(), ours[k]);
    EXPECT_EQ(view.raw_data(), slice.data_ptr());
    EXPECT_EQ(view.sizes().vec(), slice.sizes().vec());
    EXPECT_EQ(view.strides().vec(), slice.strides().vec());
    const at::Tensor back = to_torch(view * 2);
    EXPECT_EQ(back.scalar_type(), torch_types[k]);
    EXPECT_TRUE(at::equal(back, slice * 2));
    const at::Tensor round = to_torch(view);
    EXPECT_EQ(round.data_ptr(), slice.data_ptr());
    EXPECT_EQ(round.strides(), slice.strides());
  }
  // 0-d and size 0.
  EXPECT_EQ(from_torch(at::scalar_tensor(3.5, at::kDouble)).item<double>(), 3.5);
  EXPECT_EQ(to_torch(vmap::zeros({3, 0})).sizes(), (std::vector<int64_t>{3, 0}));
}

TEST(TorchInterop, BoolTravelsAsUint8) {
  // DLPack 0.6 has no bool code: LibTorch 1.13 refuses to export bool ("Bool type is not
  // supported by dlpack"), a mask is sent as uint8, which we read as bool; ours go out as uint8.
  const at::Tensor mask = at::arange(6) % 2 == 0;
  EXPECT_THROW(at::toDLPack(mask), c10::Error);
  const vmap::Tensor ours = from_torch(mask.to(at::kByte));
  EXPECT_EQ(ours.dtype(), vmap::kBool);
  EXPECT_EQ(ours.sum().item<int64_t>(), 3);
  const at::Tensor back = to_torch(vmap::logical_not(ours));
  EXPECT_EQ(back.scalar_type(), at::kByte);
  EXPECT_TRUE(at::equal(back.to(at::kBool), mask.logical_not()));
  // A uint8 tensor that is not a mask is refused, not read as bool.
  DLManagedTensor* bytes = at::toDLPack(at::arange(4).to(at::kByte));
  EXPECT_THROW(vmap::from_dlpack(bytes), vmap::Error);
  bytes->deleter(bytes);
}

TEST(TorchInterop, Cuda) {
  if (!at::hasCUDA()) GTEST_SKIP() << "LibTorch was built without CUDA or sees no device";
  const at::Tensor x = at::randn({4, 3}, at::kCUDA);
  const vmap::Tensor view = from_torch(x);
  EXPECT_EQ(view.device(), vmap::kCUDA);
  EXPECT_EQ(view.raw_data(), x.data_ptr());
  const at::Tensor out = to_torch(view * 3);
  EXPECT_TRUE(out.is_cuda());
  EXPECT_TRUE(at::allclose(out, x * 3));
}

}  // namespace
