"""torch.ops.tessel.indexer_k_cache_write on a CUDA device (skipped without
torch, a GPU, or TESSEL_TEST_CUDA_BUNDLE: a bundle of sm_90 kernels)."""
import os

import pytest

torch = pytest.importorskip("torch")
import tessel  # noqa: E402

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or not os.environ.get("TESSEL_TEST_CUDA_BUNDLE"),
    reason="needs a CUDA device and TESSEL_TEST_CUDA_BUNDLE")


def reference(k, slots, nb, bs):
    """float64 amax and scale (max(amax, 1e-4) / 448, DESIGN.md 3.4), fp8 by
    torch's own e4m3fn cast."""
    cache = torch.zeros(nb, bs, 1, 132, dtype=torch.uint8)
    flat = cache.view(nb, bs * 132)
    k64 = k.double().cpu()
    for t, s in enumerate(slots.tolist()):
        if s < 0 or s >= nb * bs:
            continue
        blk, off = divmod(s, bs)
        scale = k64[t].abs().max().clamp_min(float(
            torch.tensor(1e-4, dtype=torch.float32))) / 448.0
        q = (k64[t] / scale).to(torch.float8_e4m3fn).view(torch.uint8)
        flat[blk, off * 128:(off + 1) * 128] = q
        flat[blk, bs * 128 + off * 4:bs * 128 + off * 4 + 4] = (
            torch.tensor([float(scale)], dtype=torch.float32).view(torch.uint8))
    return cache


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_torch_op_matches_reference(dtype):
    if tessel._torch_ctx is None:
        if "TESSEL_TEST_RUNTIME_LIBRARY" in os.environ:
            tessel.load_library(os.environ["TESSEL_TEST_RUNTIME_LIBRARY"])
        assert tessel.register_torch_ops("cuda")
        tessel._torch_ctx.load_bundle(os.environ["TESSEL_TEST_CUDA_BUNDLE"])
    nb, bs, T = 8, 64, 300
    g = torch.Generator().manual_seed(3)
    k = (torch.randn(T, 136, generator=g) * 3).to(dtype)[:, :128].cuda()
    slots = torch.randperm(nb * bs, generator=g)[:T].cuda()
    slots[::7] = -1
    cache = torch.zeros(nb, bs, 1, 132, dtype=torch.uint8, device="cuda")
    torch.ops.tessel.indexer_k_cache_write(k, slots, cache)
    torch.cuda.synchronize()
    want = reference(k, slots.cpu(), nb, bs)
    got = cache.cpu()
    # Values: one fp8 step of slack (f32 kernel vs float64 reference).
    gv = got.view(nb, bs * 132)[:, :bs * 128].view(torch.float8_e4m3fn).float()
    wv = want.view(nb, bs * 132)[:, :bs * 128].view(torch.float8_e4m3fn).float()
    step = torch.exp2(torch.floor(torch.log2(torch.maximum(
        gv.abs(), wv.abs()).clamp_min(2.0 ** -6))) - 3)
    assert bool(((gv - wv).abs() <= step).all())
    gs = got.view(nb, bs * 132)[:, bs * 128:].contiguous().view(torch.float32)
    ws = want.view(nb, bs * 132)[:, bs * 128:].contiguous().view(torch.float32)
    torch.testing.assert_close(gs, ws, rtol=1e-6, atol=0)
