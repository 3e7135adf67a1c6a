// The device programs of compiled fused kernels (Note [Fused kernels on a device] in
// include/vmap/fused.hpp), made in fused_device.cpp, run by fused.cpp.
#pragma once

#include <vmap/fused.hpp>
#include <vmap/fused_scalar.hpp>  // checking_device_kernels

#include "backend.hpp"

#include <string>
#include <vector>

namespace vmap::batched::detail {

// Gives `call` the headers a fused kernel's program includes.
void with_fused_device_headers(vmap::detail::CompiledKernelCall& call);

// The program of `code`'s lambda over operands of `element` type: a store of its elements (of
// `result` type) or its examples' sums, of its values or (`squared`) their squares.
std::string fused_device_program(DeviceCode code, Dtype element, Dtype result,
                                 const std::vector<DeviceArgument>& arguments, bool sum,
                                 bool squared);

}  // namespace vmap::batched::detail
