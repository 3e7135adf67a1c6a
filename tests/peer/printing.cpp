// Peer test: `std::ostream << Tensor` prints what LibTorch 1.13 prints, for every dtype,
// 0-d, empty, 1-d to 4-d, non-contiguous, wide and extreme values; and how dtypes print.
#include <vmap/vmap.hpp>

#include "peer.hpp"

#include <limits>
#include <sstream>

using namespace vmap;
using peer::show_printed;

int main() {
  peer::Generator generator(5);
  const Tensor floats = peer::random(generator, {2, 3});
  show_printed("float32", floats);
  show_printed("float64", floats.to(kFloat64));
  show_printed("int32", peer::random(generator, {2, 3}, kInt32));
  show_printed("int64", peer::random(generator, {4}, kInt64));
  show_printed("bool", peer::random(generator, {2, 2}, kBool));
  show_printed("0d_float", tensor(2.5));
  show_printed("0d_int", tensor(7));
  show_printed("0d_bool", tensor(true));
  show_printed("empty", zeros({0}));
  show_printed("empty_2d", zeros({2, 0}, kInt64));
  show_printed("1d", tensor({1.5, -2.25, 3.0}));
  show_printed("integral_floats", tensor({1.0, 2.0, -3.0}));
  show_printed("3d", peer::random(generator, {2, 2, 3}));
  show_printed("4d", arange(24).reshape({2, 2, 2, 3}));
  show_printed("transposed", floats.t());
  show_printed("large", tensor({1e6, 2.5, -3e5}));
  show_printed("small", tensor({1e-6, 2.5e-5, 1.0}));
  show_printed("huge_range", tensor({1e-8, 1e8}));
  show_printed("wide", arange(30).to(kFloat32) / 7);
  show_printed("many_columns", arange(40).reshape({2, 20}).to(kFloat64) * 1.5);
  show_printed("special", tensor({std::numeric_limits<float>::infinity(), -1.0f,
                                  std::numeric_limits<float>::quiet_NaN()}));
  show_printed("zeros", zeros({2, 2}));
  show_printed("negative_ints", tensor({-100, 5, 12345}));
  show_printed("bool_from_compare", floats > 0);
  show_printed("row", floats[1]);
  show_printed("element", floats[0][2]);
  std::ostringstream dtypes;
  dtypes << kFloat32 << ' ' << kFloat64 << ' ' << kInt32 << ' ' << kInt64 << ' ' << kBool;
  peer::show_scalar("dtype_names", [&] { return dtypes.str(); });
}
