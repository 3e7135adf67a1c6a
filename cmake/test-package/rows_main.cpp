// Runs the header's loops and prints their results (compared by run.cmake between the
// rewritten build and the one compiled as written). This source is not rewritten: it
// finds the header's rewrite on the include path, as the rewritten sources do; on stderr
// it says whether the batched API ran.
#include <tiny/rows.hpp>
#include <vmap/profile.hpp>

#include <cstdio>

void clamp_float(const vmap::Tensor& x, vmap::Tensor& out);
void clamp_double(const vmap::Tensor& x, vmap::Tensor& out);
void centre(const vmap::Tensor& x, vmap::Tensor& out);

namespace {
void print(const char* name, const vmap::Tensor& t) {
  std::printf("%s:", name);
  const vmap::Tensor flat = t.reshape({t.numel()});
  for (int64_t k = 0; k < flat.numel(); ++k)
    std::printf(" %.5f", flat[k].item<float>());
  std::printf("\n");
}
}  // namespace

int main() {
  vmap::profile::enable();
  const vmap::Tensor x = (vmap::arange(12).reshape({4, 3}).to(vmap::kFloat32) - 5) * 0.75;
  vmap::Tensor out = vmap::zeros({4, 3});
  clamp_float(x, out);
  print("clamp_rows<float>", out);
  clamp_double(x, out);
  print("clamp_rows<double>", out);
  centre(x, out);
  print("centre_rows", out);
  tiny::RowScaler{0.5f}.apply(x, out);
  print("RowScaler::apply", out);
  std::fprintf(stderr, "batched API ops run: %s\n",
               vmap::profile::ops().empty() ? "none" : "some");
}
