// vmap::from_dlpack / to_dlpack on the CPU: capsules made here by hand (as another framework
// would), a counting deleter, every supported dtype, strides, byte_offset, 0-d and size-0
// tensors, the errors for capsules the runtime cannot view, and round trips that never copy.
// CUDA capsules: tests/cuda/device_ops_test.cpp; LibTorch's: tests/peer/torch_interop_test.cpp.
#include "test_util.hpp"

#include <vmap/dlpack.hpp>

#include <cstdint>
#include <vector>

namespace vmap {
namespace {

using vmap_test::elements;
using vmap_test::error_of;
using vmap_test::shape;

// A capsule over `data` that counts its deleter's calls, as a producer framework makes it.
struct Capsule {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int* deleted = nullptr;

  // Owned by the returned capsule until its deleter runs.
  static DLManagedTensor* make(void* data, DLDataType dtype, std::vector<int64_t> sizes,
                               std::vector<int64_t> strides, int* deleted,
                               uint64_t byte_offset = 0, DLDevice device = {kDLCPU, 0}) {
    auto* capsule = new Capsule;
    capsule->shape = std::move(sizes);
    capsule->strides = std::move(strides);
    capsule->deleted = deleted;
    DLTensor& t = capsule->managed.dl_tensor;
    t.data = data;
    t.device = device;
    t.ndim = static_cast<int>(capsule->shape.size());
    t.dtype = dtype;
    t.shape = capsule->shape.data();
    t.strides = capsule->strides.empty() ? nullptr : capsule->strides.data();
    t.byte_offset = byte_offset;
    capsule->managed.manager_ctx = capsule;
    capsule->managed.deleter = [](DLManagedTensor* self) {
      auto* owner = static_cast<Capsule*>(self->manager_ctx);
      ++*owner->deleted;
      delete owner;
    };
    return &capsule->managed;
  }
};

constexpr DLDataType f32{kDLFloat, 32, 1};

TEST(FromDlpack, ViewsTheMemoryAndCallsTheDeleterOnceWhenTheLastTensorDies) {
  std::vector<float> data = {1, 2, 3, 4, 5, 6};
  int deleted = 0;
  {
    Tensor x = from_dlpack(Capsule::make(data.data(), f32, {2, 3}, {}, &deleted));
    EXPECT_EQ(x.raw_data(), data.data());  // no copy
    EXPECT_EQ(shape(x), (std::vector<int64_t>{2, 3}));
    EXPECT_TRUE(x.is_contiguous());  // null strides: row-major
    EXPECT_EQ(x.dtype(), kFloat32);
    Tensor row = x[1];  // a view outlives the tensor it came from
    x = Tensor();
    EXPECT_EQ(deleted, 0);
    row += 10;  // writes reach the producer's memory
    EXPECT_EQ(data[3], 14.f);
    EXPECT_EQ(elements<float>(row * 2), (std::vector<float>{28, 30, 32}));
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(FromDlpack, EveryDtype) {
  int deleted = 0;
  std::vector<double> f64 = {1.5, -2.5};
  std::vector<int32_t> i32 = {7, -8};
  std::vector<int64_t> i64 = {int64_t{1} << 40, -3};
  std::vector<uint8_t> b8 = {1, 0};
  uint8_t real_bool[] = {0, 1, 1};
  const Tensor a = from_dlpack(Capsule::make(f64.data(), {kDLFloat, 64, 1}, {2}, {}, &deleted));
  const Tensor b = from_dlpack(Capsule::make(i32.data(), {kDLInt, 32, 1}, {2}, {}, &deleted));
  const Tensor c = from_dlpack(Capsule::make(i64.data(), {kDLInt, 64, 1}, {2}, {}, &deleted));
  const Tensor d = from_dlpack(Capsule::make(b8.data(), {kDLUInt, 8, 1}, {2}, {}, &deleted));
  EXPECT_EQ(a.dtype(), kFloat64);
  EXPECT_EQ(elements<double>(a), f64);
  EXPECT_EQ(b.dtype(), kInt32);
  EXPECT_EQ(elements<int32_t>(b), i32);
  EXPECT_EQ(c.dtype(), kInt64);
  EXPECT_EQ(elements<int64_t>(c), i64);
  EXPECT_EQ(d.dtype(), kBool);
  EXPECT_EQ(elements<bool>(d), (std::vector<bool>{true, false}));
  // DLPack 0.8's bool code (6), what newer producers send.
  const Tensor e = from_dlpack(Capsule::make(real_bool, {6, 8, 1}, {3}, {}, &deleted));
  EXPECT_EQ(e.dtype(), kBool);
  EXPECT_EQ(e.sum().item<int64_t>(), 2);
}

TEST(FromDlpack, StridesAndByteOffset) {
  // A transposed 3x2 view of a 2x3 buffer, starting one row in: elements 4..9 of 0..9.
  std::vector<int64_t> data(10);
  for (int64_t i = 0; i < 10; ++i) data[i] = i;
  int deleted = 0;
  const Tensor t = from_dlpack(Capsule::make(data.data(), {kDLInt, 64, 1}, {3, 2}, {1, 3},
                                             &deleted, 4 * sizeof(int64_t)));
  EXPECT_EQ(t.raw_data(), data.data() + 4);
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.strides().vec(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(elements<int64_t>(t), (std::vector<int64_t>{4, 7, 5, 8, 6, 9}));
  EXPECT_EQ(elements<int64_t>(t.sum(0)), (std::vector<int64_t>{15, 24}));
  // A broadcast (stride 0) capsule is a view too.
  const Tensor b = from_dlpack(Capsule::make(data.data(), {kDLInt, 64, 1}, {3, 2}, {0, 1},
                                             &deleted));
  EXPECT_EQ(elements<int64_t>(b), (std::vector<int64_t>{0, 1, 0, 1, 0, 1}));
}

TEST(FromDlpack, ZeroDimAndSizeZero) {
  int deleted = 0;
  float value = 2.5f;
  {
    const Tensor scalar = from_dlpack(Capsule::make(&value, f32, {}, {}, &deleted));
    EXPECT_EQ(scalar.dim(), 0);
    EXPECT_EQ(scalar.item<float>(), 2.5f);
    // Size 0: no element is read, so a null data pointer is fine.
    const Tensor empty = from_dlpack(Capsule::make(nullptr, f32, {0, 3}, {}, &deleted));
    EXPECT_EQ(shape(empty), (std::vector<int64_t>{0, 3}));
    EXPECT_EQ(shape(empty.sum(0)), (std::vector<int64_t>{3}));
  }
  EXPECT_EQ(deleted, 2);
}

TEST(FromDlpack, BadCapsulesAreErrorsAndStayTheCallers) {
  std::vector<float> data(8, 0.f);
  int deleted = 0;
  auto expect_error = [&](DLManagedTensor* capsule, const std::string& expected) {
    const std::string message = error_of([&] { from_dlpack(capsule); });
    EXPECT_NE(message.find("from_dlpack: "), std::string::npos) << message;
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_EQ(deleted, 0) << "a refused capsule is still the caller's";
    capsule->deleter(capsule);
    deleted = 0;
  };
  expect_error(Capsule::make(data.data(), {kDLFloat, 16, 1}, {2}, {}, &deleted),
               "unsupported dtype float16");
  expect_error(Capsule::make(data.data(), {kDLComplex, 64, 1}, {2}, {}, &deleted),
               "unsupported dtype complex64");
  expect_error(Capsule::make(data.data(), {kDLFloat, 32, 4}, {2}, {}, &deleted),
               "unsupported dtype float32 x 4 lanes");
  expect_error(Capsule::make(data.data(), {kDLUInt, 32, 1}, {2}, {}, &deleted),
               "unsupported dtype uint32");
  expect_error(Capsule::make(data.data(), f32, {2}, {}, &deleted, 0, {kDLROCM, 0}),
               "unsupported device kDLROCM");
  expect_error(Capsule::make(data.data(), f32, {2}, {}, &deleted, 0, {kDLCUDA, 1}),
               "CUDA device 1: the runtime uses CUDA device 0 only");
  expect_error(Capsule::make(data.data(), f32, {2, 2}, {-1, 1}, &deleted),
               "negative strides are not supported, got strides [-1, 1] for shape [2, 2]");
  expect_error(Capsule::make(data.data(), f32, {2, -1}, {}, &deleted), "[2, -1]");
  expect_error(Capsule::make(data.data(), f32, {2}, {}, &deleted, 2), "is not aligned to the 4-byte");
  expect_error(Capsule::make(nullptr, f32, {2}, {}, &deleted), "null data pointer");
  std::vector<uint8_t> bytes = {0, 1, 1, 7};
  expect_error(Capsule::make(bytes.data(), {kDLUInt, 8, 1}, {2, 2}, {}, &deleted),
               "uint8 data is read as bool (DLPack 0.6 has no bool type), but element 3 holds 7");
  EXPECT_EQ(error_of([] { from_dlpack(nullptr); }), "from_dlpack: null DLManagedTensor");
}

TEST(ToDlpack, DescribesTheTensorAndKeepsItsStorageUntilTheDeleter) {
  Tensor x = arange(12, kFloat32).reshape({3, 4});
  const Tensor column = x.select(1, 2);  // strided, with an offset
  DLManagedTensor* capsule = to_dlpack(column);
  const float* first = static_cast<const float*>(x.raw_data()) + 2;
  x = Tensor();
  const DLTensor& t = capsule->dl_tensor;
  EXPECT_EQ(t.data, first);
  EXPECT_EQ(t.byte_offset, 0u);
  EXPECT_EQ(t.device.device_type, kDLCPU);
  EXPECT_EQ(t.ndim, 1);
  EXPECT_EQ(t.shape[0], 3);
  EXPECT_EQ(t.strides[0], 4);
  EXPECT_EQ(t.dtype.code, kDLFloat);
  EXPECT_EQ(t.dtype.bits, 32);
  EXPECT_EQ(t.dtype.lanes, 1);
  EXPECT_EQ(static_cast<const float*>(t.data)[4], 6.f);  // still alive through the capsule
  capsule->deleter(capsule);

  const struct {
    Dtype dtype;
    DLDataType expected;
  } cases[] = {{kFloat64, {kDLFloat, 64, 1}}, {kInt32, {kDLInt, 32, 1}},
               {kInt64, {kDLInt, 64, 1}}, {kBool, {kDLUInt, 8, 1}}};
  for (const auto& c : cases) {
    DLManagedTensor* exported = to_dlpack(zeros({}, c.dtype));
    EXPECT_EQ(exported->dl_tensor.ndim, 0);
    EXPECT_EQ(exported->dl_tensor.dtype.code, c.expected.code);
    EXPECT_EQ(exported->dl_tensor.dtype.bits, c.expected.bits);
    exported->deleter(exported);
  }
  EXPECT_EQ(error_of([] { to_dlpack(Tensor()); }), "to_dlpack: undefined tensor");
}

TEST(ToDlpack, RoundTripSharesMemoryAndEveryDtypeComesBack) {
  for (Dtype dtype : {kFloat32, kFloat64, kInt32, kInt64, kBool}) {
    const Tensor x = arange(24).reshape({2, 3, 4}).transpose(0, 2).to(dtype);
    const Tensor back = from_dlpack(to_dlpack(x));
    EXPECT_EQ(back.raw_data(), x.raw_data());
    EXPECT_EQ(back.dtype(), dtype);
    EXPECT_EQ(shape(back), shape(x));
    EXPECT_EQ(back.strides().vec(), x.strides().vec());
    EXPECT_TRUE(equal(back, x));
  }
  // A size-0 tensor and a 0-d one.
  const Tensor empty = from_dlpack(to_dlpack(zeros({2, 0})));
  EXPECT_EQ(shape(empty), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(from_dlpack(to_dlpack(full({}, 4.5))).item<float>(), 4.5f);
}

}  // namespace
}  // namespace vmap
