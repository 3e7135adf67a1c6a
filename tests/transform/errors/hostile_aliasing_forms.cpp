// Writes that reach a tensor or a scalar the loop does not own, through forms a hostile
// tester tries (issue 18): a pointer, std::ref, a lambda capturing by reference,
// const_cast, data_ptr, a reference to the whole output, a moved or conditionally chosen
// handle, a static local, setjmp, a volatile local, a window (narrow) at a per-example start
// (windows overlap, and the batched narrow there is a gather a write would not reach), an
// in-place write through a const Tensor. Each is refused at its line and the file left
// untouched. (The forms accepted are run both ways: ../user_hostile_forms.cpp.)
#include <vmap/vmap.hpp>

#include <csetjmp>
#include <functional>
#include <utility>
using namespace vmap;

void through_pointer(const Tensor& x, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor* p = &acc;
    *p += x[i];
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:5: error: a write to '*p' is not supported in the body of a vmap loop
  }
}

void through_std_ref(const Tensor& x, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    auto r = std::ref(acc);
    r.get() += x[i];
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:5: error: a write to 'r.get()' is not supported in the body of a vmap loop
  }
}

void through_lambda(const Tensor& x, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    auto add = [&](const Tensor& v) { acc += v; };
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:16: error: a lambda is not supported in the body of a vmap loop
    add(x[i]);
  }
}

void through_const_cast(const Tensor& x, const Tensor& bias, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const_cast<Tensor&>(bias) += x[i];
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:5: error: a write to 'const_cast<Tensor&>(bias)' is not supported in the body of a vmap loop
    out[i] = x[i];
  }
}

void through_data_ptr(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out.data_ptr<float>()[i] = x[i].sum().item<float>();
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:5: error: a write to 'out.data_ptr<float>(){{\[}}i]' is not supported in the body of a vmap loop
  }
}

void count_through_pointer(const Tensor& x, Tensor& out, int64_t& count) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t* p = &count;
    *p += 1;
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:5: error: a write to '*p' is not supported in the body of a vmap loop
    out[i] = x[i];
  }
}

void reference_to_whole_output(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor& r = out;
    r[i] = x[i] * 2;
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:5: error: write through the reference 'r', which is bound to 'out'
  }
}

void moved_handle(const Tensor& x, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor a = std::move(acc);
    a += x[i];
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:5: error: in-place write to 'a', which may share its elements with another tensor
  }
}

void chosen_handle(const Tensor& x, Tensor& acc, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = i % 2 ? acc : out[i];
    t += x[i];
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:5: error: in-place write to 't', which may share its elements with another tensor
  }
}

void static_counter(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    static int64_t calls = 0;
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:5: error: a static local is not supported in the body of a vmap loop
    calls += 1;
    out[i] = x[i] * calls;
  }
}

static std::jmp_buf resume;
void with_setjmp(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    if (setjmp(resume) == 0) out[i] = x[i];
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:9: error: call to '_setjmp' has no batching rule and cannot run per example
  }
}

void volatile_local(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    volatile float total = x[i].sum().item<float>();
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:5: error: a volatile local is not supported in the body of a vmap loop
    out[i] = total;
  }
}

void overlapping_windows(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out.narrow(0, i, 2) += x[i];
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:43: error: store into 'out' does not write only this example's slot: index it by the induction variable 'i' first
}

void windows_copied_into(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out.narrow(0, i, 2).copy_(x[i] * (i + 1));
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:43: error: store into 'out' does not write only this example's slot: index it by the induction variable 'i' first
}

void window_of_one(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out.narrow(0, i, 1) += x[i].sum();
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:43: error: store into 'out' does not write only this example's slot: index it by the induction variable 'i' first
}

void const_reference_to_slot(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const Tensor& r = out[i];
    r += x[i];
// CHECK: {{.*}}hostile_aliasing_forms.cpp:[[@LINE-1]]:5: error: an in-place write through the const Tensor 'r' is not supported in the body of a vmap loop
  }
}
// CHECK: 19 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
