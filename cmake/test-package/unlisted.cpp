#include <legacy/unlisted.hpp>

int main() {
  vmap::Tensor out = vmap::zeros({2, 2});
  halve_rows(vmap::ones({2, 2}), out);
}
