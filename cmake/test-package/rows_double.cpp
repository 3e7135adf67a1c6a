#include <tiny/rows.hpp>

void clamp_double(const vmap::Tensor& x, vmap::Tensor& out) {
  tiny::clamp_rows(x, out, 1.25, 7.5);
}

void centre(const vmap::Tensor& x, vmap::Tensor& out) { tiny::centre_rows(x, out); }
