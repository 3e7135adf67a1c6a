"""The interop sample against PyTorch: the batched loop of scores.cpp, called on
torch.Tensors, equals the same loop written in PyTorch and functorch.vmap's answer, and no
tensor is copied on the way in or out."""
import sys
import time

import torch
import torch.utils.dlpack

import vmap_torch_example as vm


def scores_in_pytorch(x, w, bias):
    return torch.stack([torch.relu(x[b] @ w + bias) * x[b].sum() for b in range(x.shape[0])])


def main():
    torch.manual_seed(0)
    x, w, bias = torch.randn(64, 16), torch.randn(16, 8), torch.randn(8)
    started = time.perf_counter()
    out = vm.scores(x, w, bias)
    ours = time.perf_counter() - started
    expected = scores_in_pytorch(x, w, bias)
    assert out.shape == (64, 8) and out.dtype == torch.float32, (out.shape, out.dtype)
    assert torch.allclose(out, expected, rtol=1e-5, atol=1e-5), (out - expected).abs().max()
    report = f"clang-vmap {ours * 1e3:.2f} ms"
    try:
        import functorch
    except ImportError:
        functorch = None
    if functorch is not None:
        started = time.perf_counter()
        batched = functorch.vmap(lambda xb: torch.relu(xb @ w + bias) * xb.sum())(x)
        report += f", functorch.vmap {(time.perf_counter() - started) * 1e3:.2f} ms"
        assert torch.allclose(out, batched, rtol=1e-5, atol=1e-5)

    # No copy: a tensor through vmap::Tensor and back is the same memory, strided views too.
    view = x.t()[2:]
    back = vm.round_trip(view)
    assert back.data_ptr() == view.data_ptr() and back.stride() == view.stride()
    back[0, 0] = 123.0
    assert x[0, 2] == 123.0

    # A bad input is a Python exception naming the op, not a crash.
    try:
        vm.scores(x.half(), w, bias)
    except vm.Error as error:
        assert "from_dlpack: unsupported dtype float16" in str(error), error
    else:
        raise AssertionError("float16 was accepted")
    print("ok:", report)


if __name__ == "__main__":
    sys.exit(main())
