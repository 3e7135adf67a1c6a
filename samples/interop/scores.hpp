// The per-example computation the interop sample batches: for every example b,
// out[b] = relu(x[b] @ w + bias) * x[b].sum().
#pragma once

#include <vmap/vmap.hpp>

void scores(const vmap::Tensor& x, const vmap::Tensor& w, const vmap::Tensor& bias,
            vmap::Tensor& out);
