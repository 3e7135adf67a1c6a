// mandelbrot (samples/mandelbrot.cpp) as a plain C++ loop (Note [Plain C++ loops] in
// plain.hpp): the escape-time loop per point, as written, over raw pointers; threads over the
// rows. Each point stops at its own iteration, so the inner loop is not vectorised (ISPC's
// masks would); this is what a C++ engineer writes without intrinsics.
#include "plain.hpp"

using namespace vmap;

static sample::CaseList cases() {
  const int64_t width = 384, height = 256;
  const Tensor re = arange(width).to(kFloat) * (3.0f / width) - 2.0f;
  const Tensor im = arange(height).to(kFloat) * (2.0f / height) - 1.0f;
  return {{"Mandelbrot 256x384, max_iter 256", height, [=](int64_t count) {
             Tensor counts = zeros({count, width}, kInt32);
             const float* cre = re.data_ptr<float>();
             const float* cim = im.data_ptr<float>();
             int32_t* result = counts.data_ptr<int32_t>();
             const int max_iter = 256;
#pragma omp parallel for schedule(dynamic, 8) if (count * width * 64 > plain::kGrain)
             for (int64_t y = 0; y < count; ++y)
               for (int64_t x = 0; x < width; ++x) {
                 const float cr = cre[x], ci = cim[y];
                 float zr = 0.0f, zi = 0.0f;
                 int k = 0;
                 while (k < max_iter && zr * zr + zi * zi < 4.0f) {
                   const float next_r = zr * zr - zi * zi + cr;
                   zi = 2.0f * zr * zi + ci;
                   zr = next_r;
                   ++k;
                 }
                 result[y * width + x] = k;
               }
             return counts;
           }}};
}
static const sample::Registration registration(cases);
