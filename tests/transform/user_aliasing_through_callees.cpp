// Tensors a loop reaches other than by name (issue 31): a member of an object passed to a
// same-file function (by reference, by address, or a global pointer's; one helper called
// with two objects reaches a member of each), a global array of tensors, a std::vector of
// tensors read with .at() or passed to a helper, and a tensor read through a pointer. Each is checked against the output before the loop; main() binds the
// output to the very tensor the loop multiplies by, so that a batched run reads rows the loop
// as written has already overwritten: the loop must run as written there.
#include <vmap/vmap.hpp>
#include <iostream>
#include <vector>
using namespace vmap;

struct Holder {
  Tensor buf;
};

Tensor times(const Holder& holder, const Tensor& v) { return matmul(holder.buf, v); }

void through_a_parameter(const Holder& holder, const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = times(holder, x[i]);
}
// CHECK-LABEL: void through_a_parameter(
// CHECK: ::vmap::batched::any_overlap(out, holder.buf)) {

// One helper called with two objects reaches a member of each.
Tensor both(const Holder& first, const Holder& second, const Tensor& v) {
  return times(first, v) + times(second, v);
}

void through_two_objects(const Holder& first, const Holder& second, const Tensor& x,
                         Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = both(first, second, x[i]);
}
// CHECK-LABEL: void through_two_objects(
// CHECK: ::vmap::batched::any_overlap(out, first.buf) ||
// CHECK-NEXT: ::vmap::batched::any_overlap(out, second.buf)) {

Tensor times_pointed(const Holder* holder, const Tensor& v) { return matmul(holder->buf, v); }

void through_an_address(Holder& holder, const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = times_pointed(&holder, x[i]);
}
// CHECK-LABEL: void through_an_address(
// CHECK: ::vmap::batched::any_overlap(out, (&holder)->buf)) {

Holder* g_holder = nullptr;

Tensor times_global(const Tensor& v) { return matmul(g_holder->buf, v); }

void through_a_global_pointer(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = times_global(x[i]);
}
// CHECK-LABEL: void through_a_global_pointer(
// CHECK: ::vmap::batched::any_overlap(out, ::g_holder->buf)) {

Tensor g_layers[2];

void through_a_global_array(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = matmul(g_layers[0], x[i]);
}
// CHECK-LABEL: void through_a_global_array(
// CHECK: ::vmap::batched::any_overlap(out, g_layers)) {

void through_vector_at(const std::vector<Tensor>& layers, const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = matmul(layers.at(0), x[i]);
}
// CHECK-LABEL: void through_vector_at(
// CHECK: ::vmap::batched::any_overlap(out, layers)) {

Tensor first_times(const std::vector<Tensor>& layers, const Tensor& v) {
  return matmul(layers.front(), v);
}

void through_a_vector_argument(const std::vector<Tensor>& layers, const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = first_times(layers, x[i]);
}
// CHECK-LABEL: void through_a_vector_argument(
// CHECK: ::vmap::batched::any_overlap(out, layers)) {

void through_a_pointer(const Tensor* weights, const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = matmul(*weights, x[i]);
}
// CHECK-LABEL: void through_a_pointer(
// CHECK: ::vmap::batched::any_overlap(out, (*weights))) {

int main() {
  Tensor square = arange(9).reshape({3, 3}).to(kFloat);

  Holder holder{square.clone()};
  through_a_parameter(holder, square, holder.buf);  // writes the rows it multiplies by
  std::cout << holder.buf << "\n";
  Holder first{square * 0.5}, second{square.clone()};
  through_two_objects(first, second, square, second.buf);  // the second object's rows
  std::cout << second.buf << "\n";
  Holder pointed{square.clone()};
  through_an_address(pointed, square, pointed.buf);
  std::cout << pointed.buf << "\n";
  Holder global{square.clone()};
  g_holder = &global;
  through_a_global_pointer(square, global.buf);
  std::cout << global.buf << "\n";
  Tensor separate = zeros({3, 3});
  through_a_global_pointer(square, separate);  // distinct: batched
  std::cout << separate << "\n";

  g_layers[0] = square.clone();
  through_a_global_array(square, g_layers[0]);
  std::cout << g_layers[0] << "\n";
  std::vector<Tensor> layers{square.clone()};
  through_vector_at(layers, square, layers[0]);
  std::cout << layers[0] << "\n";
  std::vector<Tensor> more{square.clone()};
  through_a_vector_argument(more, square, more[0]);
  std::cout << more[0] << "\n";
  Tensor weights = square.clone();
  through_a_pointer(&weights, square, weights);
  std::cout << weights << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
