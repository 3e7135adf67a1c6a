// A Python module for PyTorch users: torch.Tensors in through torch.utils.dlpack, the
// clang-vmap-batched loop of scores.cpp, a torch.Tensor out; no copy either way.
//   import torch, vmap_torch_example
//   out = vmap_torch_example.scores(x, w, bias)   # x [B, n], w [n, m], bias [m] float32
#include "scores.hpp"

#include <vmap/dlpack.hpp>

#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace {

// The DLPack capsule protocol: a capsule named "dltensor" is unconsumed; the consumer
// renames it "used_dltensor" and from then on owns the DLManagedTensor.
constexpr const char* fresh_capsule = "dltensor";
constexpr const char* used_capsule = "used_dltensor";

vmap::Tensor from_torch(const py::handle& tensor) {
  py::object capsule = py::module_::import("torch.utils.dlpack").attr("to_dlpack")(tensor);
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), fresh_capsule));
  if (managed == nullptr) throw py::error_already_set();
  vmap::Tensor result = vmap::from_dlpack(managed);  // on an error the capsule stays torch's
  PyCapsule_SetName(capsule.ptr(), used_capsule);
  return result;
}

py::object to_torch(const vmap::Tensor& tensor) {
  py::capsule capsule(vmap::to_dlpack(tensor), fresh_capsule, [](PyObject* self) {
    // Never consumed (torch raised before taking it): the capsule still owns the tensor.
    if (PyCapsule_IsValid(self, fresh_capsule)) {
      auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(self, fresh_capsule));
      managed->deleter(managed);
    }
  });
  return py::module_::import("torch.utils.dlpack").attr("from_dlpack")(capsule);
}

}  // namespace

PYBIND11_MODULE(vmap_torch_example, module) {
  module.doc() = "clang-vmap batched loops on torch.Tensors, through DLPack without copies";
  py::register_exception<vmap::Error>(module, "Error", PyExc_ValueError);
  module.def(
      "scores",
      [](const py::handle& x, const py::handle& w, const py::handle& bias) {
        const vmap::Tensor xs = from_torch(x);
        vmap::Tensor out = vmap::empty({xs.size(0), from_torch(w).size(1)}, xs.options());
        scores(xs, from_torch(w), from_torch(bias), out);
        return to_torch(out);
      },
      py::arg("x"), py::arg("w"), py::arg("bias"),
      "relu(x[b] @ w + bias) * x[b].sum() for every example b, batched by clang-vmap");
  module.def(
      "round_trip", [](const py::handle& tensor) { return to_torch(from_torch(tensor)); },
      py::arg("tensor"), "The tensor through vmap::Tensor and back: the same memory");
}
