// The Mandelbrot set, ISPC's classic: an escape-time `while` loop per point of a
// [256, 384] grid, at most 256 iterations. Each point runs its own number of iterations;
// the rewrite runs the loop as written per point (Note [Fused control flow], fuse.cpp).
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

void mandelbrot(const Tensor& re, const Tensor& im, int max_iter, Tensor& counts) {
#pragma vmap
  for (int64_t y = 0; y < im.size(0); ++y) {
#pragma vmap
    for (int64_t x = 0; x < re.size(0); ++x) {
      float cr = re[x].item<float>();
      float ci = im[y].item<float>();
      float zr = 0.0f, zi = 0.0f;
      int k = 0;
      while (k < max_iter && zr * zr + zi * zi < 4.0f) {
        float next_r = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = next_r;
        ++k;
      }
      counts[y][x] = k;
    }
  }
}

static sample::CaseList cases() {
  const int64_t width = 384, height = 256;
  const Tensor re = (arange(width).to(kFloat) * (3.0f / width) - 2.0f).to(sample::device());
  const Tensor im = (arange(height).to(kFloat) * (2.0f / height) - 1.0f).to(sample::device());
  return {{"Mandelbrot 256x384, max_iter 256", height, [=](int64_t count) {
             Tensor counts = zeros({count, width}, TensorOptions(kInt32).device(sample::device()));
             mandelbrot(re, im.narrow(0, 0, count), 256, counts);
             return counts;
           }}};
}
static const sample::Registration registration(cases);
