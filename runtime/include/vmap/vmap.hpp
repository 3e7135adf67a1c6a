// The clang-vmap tensor runtime: everything of SPEC section 4.
#pragma once

#include <vmap/detail/promotion.hpp>
#include <vmap/tensor.hpp>
#include <vmap/types.hpp>
