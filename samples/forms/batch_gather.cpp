// Forms of samples/batch_gather.cpp (`out[i] = input[i].index_select(0, index[i])`) a user
// writes first: Note [Forms of the seeds] in ../CMakeLists.txt.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

// Each sample's forms are linked into one benchmark: names stay in their file.
namespace {

// int64_t k = index[i][j].item<int64_t>(); out[i][j] = input[i][k];
void item_index_local(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < index.size(1); ++j) {
      int64_t k = index[i][j].item<int64_t>();
      out[i][j] = input[i][k];
    }
}

// A plain inner loop: out[i][j] = input[i][index[i][j].item<int64_t>()];
void item_index_plain_inner_loop(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i)
    for (int64_t j = 0; j < index.size(1); ++j)
      out[i][j] = input[i][index[i][j].item<int64_t>()];
}

void gather(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i)
    out[i] = input[i].gather(0, index[i]);
}

// out[i] = input[i][index[i]] (operator[] with an integer tensor)
void tensor_subscript(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i)
    out[i] = input[i][index[i]];
}

Tensor pick(const Tensor& row, const Tensor& positions) {
  return row.index_select(0, positions);
}

void through_a_helper(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i)
    out[i] = pick(input[i], index[i]);
}

// Tensor row = input[i]; Tensor positions = index[i]; out[i].copy_(row.index_select(...));
void locals_and_copy(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i) {
    Tensor row = input[i];
    Tensor positions = index[i];
    out[i].copy_(row.index_select(0, positions));
  }
}

// select() for the rows, the free index_select, a store through select().
void select_and_free_function(const Tensor& input, const Tensor& index, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < input.size(0); ++i)
    out.select(0, i) = index_select(input.select(0, i), 0, index.select(0, i));
}

}  // namespace

static sample::CaseList cases() {
  manual_seed(1);
  const Tensor input = randn({1024, 256}).to(sample::device());
  const Tensor index = randint(0, 256, {1024, 32}).to(sample::device());
  const Tensor input64 = input.to(kDouble);
  using Form = void (*)(const Tensor&, const Tensor&, Tensor&);
  sample::CaseList list;
  const auto add = [&](const std::string& form, Form f, const Tensor& x) {
    list.push_back({"batch gather [1024,256], 32 idx/row :: batch_gather/" + form, 1024,
                    [=](int64_t count) {
                      Tensor out = zeros({count, 32}, TensorOptions(x.scalar_type())
                                                          .device(sample::device()));
                      f(x.narrow(0, 0, count), index.narrow(0, 0, count), out);
                      return out;
                    }});
  };
  add("item_index_local", item_index_local, input);
  add("item_index_plain_inner_loop", item_index_plain_inner_loop, input);
  add("gather", gather, input);
  add("tensor_subscript", tensor_subscript, input);
  add("through_a_helper", through_a_helper, input);
  add("locals_and_copy", locals_and_copy, input);
  add("select_and_free_function", select_and_free_function, input);
  add("locals_and_copy (float64)", locals_and_copy, input64);
  return list;
}
static const sample::Registration registration(cases);
