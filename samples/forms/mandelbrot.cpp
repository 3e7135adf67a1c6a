// Forms of samples/mandelbrot.cpp (an escape-time `while` loop per point) a user writes
// first: Note [Forms of the seeds] in ../CMakeLists.txt.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

// Each sample's forms are linked into one benchmark: names stay in their file.
namespace {

// A `for` loop over the iterations that breaks on escape.
void for_with_break(const Tensor& re, const Tensor& im, int max_iter, Tensor& counts) {
#pragma vmap
  for (int64_t y = 0; y < im.size(0); ++y) {
#pragma vmap
    for (int64_t x = 0; x < re.size(0); ++x) {
      float cr = re[x].item<float>();
      float ci = im[y].item<float>();
      float zr = 0.0f, zi = 0.0f;
      int k = 0;
      for (; k < max_iter; ++k) {
        if (zr * zr + zi * zi >= 4.0f)
          break;
        float next_r = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = next_r;
      }
      counts[y][x] = k;
    }
  }
}

// The squares kept in locals, `k++`.
void squares_in_locals(const Tensor& re, const Tensor& im, int max_iter, Tensor& counts) {
#pragma vmap
  for (int64_t y = 0; y < im.size(0); ++y) {
#pragma vmap
    for (int64_t x = 0; x < re.size(0); ++x) {
      float cr = re[x].item<float>();
      float ci = im[y].item<float>();
      float zr = 0.0f, zi = 0.0f, zr2 = 0.0f, zi2 = 0.0f;
      int k = 0;
      while (k < max_iter && zr2 + zi2 < 4.0f) {
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        zr2 = zr * zr;
        zi2 = zi * zi;
        k++;
      }
      counts[y][x] = k;
    }
  }
}

int escape_count(float cr, float ci, int max_iter) {
  float zr = 0.0f, zi = 0.0f;
  for (int k = 0; k < max_iter; ++k) {
    if (zr * zr + zi * zi >= 4.0f)
      return k;
    float next_r = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = next_r;
  }
  return max_iter;
}

// A helper that returns the count from inside its loop.
void through_a_helper(const Tensor& re, const Tensor& im, int max_iter, Tensor& counts) {
#pragma vmap
  for (int64_t y = 0; y < im.size(0); ++y) {
#pragma vmap
    for (int64_t x = 0; x < re.size(0); ++x)
      counts[y][x] = escape_count(re[x].item<float>(), im[y].item<float>(), max_iter);
  }
}

// The escape count as a lambda of the function, the bound passed to it.
void through_a_lambda(const Tensor& re, const Tensor& im, int max_iter, Tensor& counts) {
  auto escape = [](float cr, float ci, int limit) {
    float zr = 0.0f, zi = 0.0f;
    for (int k = 0; k < limit; ++k) {
      if (zr * zr + zi * zi >= 4.0f)
        return k;
      float next_r = zr * zr - zi * zi + cr;
      zi = 2.0f * zr * zi + ci;
      zr = next_r;
    }
    return limit;
  };
#pragma vmap
  for (int64_t y = 0; y < im.size(0); ++y) {
#pragma vmap
    for (int64_t x = 0; x < re.size(0); ++x)
      counts[y][x] = escape(re[x].item<float>(), im[y].item<float>(), max_iter);
  }
}

// The escape count as a lambda that captures the bound.
void lambda_capturing_the_bound(const Tensor& re, const Tensor& im, int max_iter,
                                Tensor& counts) {
  auto escape = [&](float cr, float ci) {
    float zr = 0.0f, zi = 0.0f;
    for (int k = 0; k < max_iter; ++k) {
      if (zr * zr + zi * zi >= 4.0f)
        return k;
      float next_r = zr * zr - zi * zi + cr;
      zi = 2.0f * zr * zi + ci;
      zr = next_r;
    }
    return max_iter;
  };
#pragma vmap
  for (int64_t y = 0; y < im.size(0); ++y) {
#pragma vmap
    for (int64_t x = 0; x < re.size(0); ++x)
      counts[y][x] = escape(re[x].item<float>(), im[y].item<float>());
  }
}

// One vmap over the rows; the points of a row in a plain inner loop.
void plain_inner_loop(const Tensor& re, const Tensor& im, int max_iter, Tensor& counts) {
#pragma vmap
  for (int64_t y = 0; y < im.size(0); ++y) {
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

// double arithmetic on the float coordinates.
void double_arithmetic(const Tensor& re, const Tensor& im, int max_iter, Tensor& counts) {
#pragma vmap
  for (int64_t y = 0; y < im.size(0); ++y) {
#pragma vmap
    for (int64_t x = 0; x < re.size(0); ++x) {
      double cr = re[x].item<double>();
      double ci = im[y].item<double>();
      double zr = 0.0, zi = 0.0;
      int k = 0;
      while (k < max_iter && zr * zr + zi * zi < 4.0) {
        double next_r = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = next_r;
        ++k;
      }
      counts[y][x] = k;
    }
  }
}

// A lambda holding the loop, the count stored as int64_t.
void loop_in_a_lambda(const Tensor& re, const Tensor& im, int max_iter, Tensor& counts) {
  const auto render = [&](Tensor& into) {
#pragma vmap
    for (int64_t y = 0; y < im.size(0); ++y) {
#pragma vmap
      for (int64_t x = 0; x < re.size(0); ++x) {
        const float cr = re[x].item<float>();
        const float ci = im[y].item<float>();
        float zr = 0.0f, zi = 0.0f;
        int64_t k = 0;
        while (k < max_iter && zr * zr + zi * zi < 4.0f) {
          const float next_r = zr * zr - zi * zi + cr;
          zi = 2.0f * zr * zi + ci;
          zr = next_r;
          k += 1;
        }
        into[y][x] = k;
      }
    }
  };
  render(counts);
}

}  // namespace

static sample::CaseList cases() {
  const int64_t width = 384, height = 256;
  const Tensor re = (arange(width).to(kFloat) * (3.0f / width) - 2.0f).to(sample::device());
  const Tensor im = (arange(height).to(kFloat) * (2.0f / height) - 1.0f).to(sample::device());
  using Form = void (*)(const Tensor&, const Tensor&, int, Tensor&);
  sample::CaseList list;
  const auto add = [&](const std::string& form, Form f) {
    list.push_back({"Mandelbrot 256x384, max_iter 256 :: mandelbrot/" + form, height,
                    [=](int64_t count) {
                      Tensor counts = zeros({count, width},
                                            TensorOptions(kInt32).device(sample::device()));
                      f(re, im.narrow(0, 0, count), 256, counts);
                      return counts;
                    }});
  };
  add("for_with_break", for_with_break);
  add("squares_in_locals", squares_in_locals);
  add("through_a_helper", through_a_helper);
  add("through_a_lambda", through_a_lambda);
  add("lambda_capturing_the_bound", lambda_capturing_the_bound);
  add("plain_inner_loop", plain_inner_loop);
  add("double_arithmetic", double_arithmetic);
  add("loop_in_a_lambda", loop_in_a_lambda);
  return list;
}
static const sample::Registration registration(cases);
