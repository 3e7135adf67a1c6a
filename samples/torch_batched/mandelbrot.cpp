// mandelbrot (samples/mandelbrot.cpp) as a LibTorch user batches it by hand: every point at
// once, an escape mask per iteration, `where` keeping the points that escaped, until none
// is left.
#include <torch/types.h>

#include "harness/sample.hpp"

static torch::Tensor mandelbrot(const torch::Tensor& re, const torch::Tensor& im, int max_iter) {
  const torch::Tensor cr = re.unsqueeze(0).expand({im.size(0), re.size(0)});
  const torch::Tensor ci = im.unsqueeze(1).expand({im.size(0), re.size(0)});
  torch::Tensor zr = torch::zeros_like(cr), zi = torch::zeros_like(cr);
  torch::Tensor counts = torch::zeros(cr.sizes(), cr.options().dtype(torch::kInt32));
  for (int k = 0; k < max_iter; ++k) {
    const torch::Tensor active = zr * zr + zi * zi < 4.0f;
    if (!active.any().item<bool>()) break;
    const torch::Tensor next_r = zr * zr - zi * zi + cr;
    zi = torch::where(active, 2.0f * zr * zi + ci, zi);
    zr = torch::where(active, next_r, zr);
    counts += active;
  }
  return counts;
}

static sample::CaseList cases() {
  const int64_t width = 384, height = 256;
  const torch::Tensor re =
      (torch::arange(width).to(torch::kFloat) * (3.0f / width) - 2.0f).to(sample::device());
  const torch::Tensor im =
      (torch::arange(height).to(torch::kFloat) * (2.0f / height) - 1.0f).to(sample::device());
  return {{"Mandelbrot 256x384, max_iter 256", height,
           [=](int64_t count) { return mandelbrot(re, im.narrow(0, 0, count), 256); }}};
}
static const sample::Registration registration(cases);
