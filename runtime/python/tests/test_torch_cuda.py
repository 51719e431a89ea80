"""torch.ops.tessel.* on a CUDA device (skipped without torch, a GPU, or
TESSEL_TEST_CUDA_BUNDLE: a bundle of sm_90 kernels): the writer against
torch's own fp8 cast, on torch's current stream, through the compiled binding
(tessel/csrc/torch_ops.cpp); 20 CUDA-graph replays against eager calls; and
torch.compile(fullgraph=True) bit-exact against eager."""
import os

import pytest

torch = pytest.importorskip("torch")
import tessel  # noqa: E402
from tessel import _torch_ops  # noqa: E402

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or not os.environ.get("TESSEL_TEST_CUDA_BUNDLE"),
    reason="needs a CUDA device and TESSEL_TEST_CUDA_BUNDLE")


@pytest.fixture(scope="module")
def op():
    if _torch_ops.context() is None:
        if "TESSEL_TEST_RUNTIME_LIBRARY" in os.environ:
            tessel.load_library(os.environ["TESSEL_TEST_RUNTIME_LIBRARY"])
        assert tessel.register_torch_ops("cuda")
        _torch_ops.context().load_bundle(os.environ["TESSEL_TEST_CUDA_BUNDLE"])
    if _torch_ops.context().device_kind != "cuda":
        pytest.skip("torch.ops.tessel is registered on another device")
    return torch.ops.tessel.indexer_k_cache_write


def test_the_binding_is_the_compiled_one(op):
    # "auto" falls back to ctypes only where the extension cannot be built;
    # on the GPU machine it must build.
    assert _torch_ops.binding() == "compiled"


def write_inputs(g, T, nb, bs, dtype=torch.bfloat16):
    """Fresh k (row stride 136), slots with skips and a poisoned cache, on
    the GPU."""
    k = (torch.randn(T, 136, generator=g) * 3).to(dtype)[:, :128].cuda()
    slots = torch.randperm(nb * bs, generator=g)[:T]
    slots[::7] = -1
    poison = torch.randint(0, 256, (nb, bs, 1, 132), generator=g,
                           dtype=torch.uint8)
    return k, slots.cuda(), poison.cuda()


def reference(k, slots, nb, bs):
    """float64 amax and scale, fp8 by torch's own e4m3fn cast."""
    cache = torch.zeros(nb, bs, 1, 132, dtype=torch.uint8)
    flat = cache.view(nb, bs * 132)
    k64 = k.double().cpu()
    for t, s in enumerate(slots.tolist()):
        if s < 0 or s >= nb * bs:
            continue
        blk, off = divmod(s, bs)
        scale = k64[t].abs().max() / 448.0
        q = (k64[t] / scale).to(torch.float8_e4m3fn).view(torch.uint8)
        flat[blk, off * 128:(off + 1) * 128] = q
        flat[blk, bs * 128 + off * 4:bs * 128 + off * 4 + 4] = (
            torch.tensor([float(scale)], dtype=torch.float32).view(torch.uint8))
    return cache


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_torch_op_matches_reference(op, dtype):
    nb, bs, T = 8, 64, 300
    g = torch.Generator().manual_seed(3)
    k = (torch.randn(T, 136, generator=g) * 3).to(dtype)[:, :128].cuda()
    slots = torch.randperm(nb * bs, generator=g)[:T].cuda()
    slots[::7] = -1
    cache = torch.zeros(nb, bs, 1, 132, dtype=torch.uint8, device="cuda")
    op(k, slots, cache)
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


def test_cuda_graph_replays_write_what_eager_calls_write(op):
    """One call captured in a CUDA graph, replayed 20 times over fresh inputs
    copied into its static buffers: every byte equals an eager call's. The
    capture (on a side stream, in global mode) also fails if the op launches
    anywhere but torch's current stream."""
    g = torch.Generator().manual_seed(5)
    nb, bs, T = 16, 64, 257
    k, slots, cache = write_inputs(g, T, nb, bs)
    capture = torch.cuda.Stream()
    capture.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(capture):
        op(k, slots, cache)  # warm-up outside the capture
    torch.cuda.current_stream().wait_stream(capture)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        op(k, slots, cache)
    wrong = 0
    for _ in range(20):
        k_new, slots_new, poison = write_inputs(g, T, nb, bs)
        k.copy_(k_new)
        slots.copy_(slots_new)
        cache.copy_(poison)
        graph.replay()
        want = poison.clone()
        op(k_new, slots_new, want)
        torch.cuda.synchronize()
        wrong += int((cache != want).sum())
    assert wrong == 0


def test_compiled_step_is_bit_exact_against_eager(op):
    def step(k, slots, cache):
        op((k.float() * 0.5 + 1.0).to(k.dtype), slots, cache)
        return cache.view(-1)[:4096].float().sum()

    g = torch.Generator().manual_seed(9)
    k, slots, poison = write_inputs(g, 300, 8, 64)
    eager_cache = poison.clone()
    eager = step(k, slots, eager_cache)
    compiled = torch.compile(step, fullgraph=True)
    comp_cache = poison.clone()
    got = compiled(k, slots, comp_cache)
    torch.cuda.synchronize()
    assert int((comp_cache != eager_cache).sum()) == 0
    assert torch.equal(got, eager)
