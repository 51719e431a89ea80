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


def preshuffled_position(bs):
    """pos[o * 128 + d]: where byte (token o, dim d) of a block's value region
    lies in the preshuffled layout [bs/16][128/16][16 tokens][16 bytes]."""
    o = torch.arange(bs).view(bs, 1)
    d = torch.arange(128).view(1, 128)
    return (((o // 16) * 8 + d // 16) * 256 + (o % 16) * 16 + d % 16).view(-1)


def reference(k, slots, nb, bs, preshuffle=False, scale_fmt=None):
    """DESIGN.md 3.4 in float64: scale = max(amax, 1e-4) / 448, rounded to
    f32 (and up to a power of two for ue8m0); fp8 by torch's own e4m3fn
    cast; the value region permuted for a preshuffled cache."""
    cache = torch.zeros(nb, bs, 1, 132, dtype=torch.uint8)
    flat = cache.view(nb, bs * 132)
    k64 = k.double().cpu()
    for t, s in enumerate(slots.tolist()):
        if s < 0 or s >= nb * bs:
            continue
        blk, off = divmod(s, bs)
        floor = float(torch.tensor(1e-4, dtype=torch.float32))
        scale = torch.tensor(max(float(k64[t].abs().max()), floor) / 448.0,
                             dtype=torch.float32).double()
        if scale_fmt == "ue8m0":
            scale = torch.exp2(torch.ceil(torch.log2(scale)))
        q = (k64[t] / scale).to(torch.float8_e4m3fn).view(torch.uint8)
        flat[blk, off * 128:(off + 1) * 128] = q
        flat[blk, bs * 128 + off * 4:bs * 128 + off * 4 + 4] = (
            scale.float().reshape(1).view(torch.uint8))
    if preshuffle:
        values = flat[:, :bs * 128].clone()
        flat[:, preshuffled_position(bs)] = values
    return cache


def check_against_reference(got, want, nb, bs):
    """fp8 values within one fp8 step (an f32 kernel against float64), the
    scales within 1e-6, as bytes of [nb, bs, 1, 132] caches."""
    got, want = got.cpu(), want.cpu()
    gv = got.view(nb, bs * 132)[:, :bs * 128].view(torch.float8_e4m3fn).float()
    wv = want.view(nb, bs * 132)[:, :bs * 128].view(torch.float8_e4m3fn).float()
    step = torch.exp2(torch.floor(torch.log2(torch.maximum(
        gv.abs(), wv.abs()).clamp_min(2.0 ** -6))) - 3)
    assert bool(((gv - wv).abs() <= step).all())
    gs = got.view(nb, bs * 132)[:, bs * 128:].contiguous().view(torch.float32)
    ws = want.view(nb, bs * 132)[:, bs * 128:].contiguous().view(torch.float32)
    torch.testing.assert_close(gs, ws, rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("preshuffle,scale_fmt", [
    (False, None), (True, None), (False, "ue8m0"), (True, "ue8m0")])
def test_torch_op_matches_reference(op, dtype, preshuffle, scale_fmt):
    nb, bs, T = 8, 64, 300
    g = torch.Generator().manual_seed(3)
    k = (torch.randn(T, 136, generator=g) * 3).to(dtype)[:, :128].cuda()
    slots = torch.randperm(nb * bs, generator=g)[:T].cuda()
    slots[::7] = -1
    cache = torch.zeros(nb, bs, 1, 132, dtype=torch.uint8, device="cuda")
    op(k, slots, cache, preshuffle=preshuffle, scale_fmt=scale_fmt)
    torch.cuda.synchronize()
    check_against_reference(cache, reference(k, slots.cpu(), nb, bs,
                                             preshuffle, scale_fmt), nb, bs)


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
        op((k.float() * 0.5 + 1.0).to(k.dtype), slots, cache,
           preshuffle=True, scale_fmt="ue8m0")
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


def skip_without_kernel(fn):
    """Runs fn(); skips the test when the bundle has no kernel for the op."""
    try:
        return fn()
    except RuntimeError as e:
        if "no code object" in str(e):
            pytest.skip("the bundle has no kernel for this op: %s" % e)
        raise


def logits_inputs(op, g, B=3, next_n=2, H=32, bs=64, max_model_len=1024):
    """Random fp8 q, a cache written by the writer through shuffled block
    tables, and uneven 1-D lengths (one of them 0)."""
    q = (torch.randn(B, next_n, H, 128, generator=g) * 2).to(
        torch.float8_e4m3fn).view(torch.uint8).cuda()
    weights = torch.randn(B * next_n, H, generator=g).cuda()
    lens = torch.randint(0, max_model_len + 1, (B,), generator=g,
                         dtype=torch.int32)
    lens[0] = 0
    per_seq = max_model_len // bs
    nb = B * per_seq
    tables = torch.randperm(nb, generator=g, dtype=torch.int32).view(
        B, per_seq)
    t = torch.arange(per_seq * bs)
    slots = (tables.long()[:, t // bs] * bs + t % bs).reshape(-1)
    k = torch.randn(slots.numel(), 128, generator=g).to(torch.bfloat16)
    kv = torch.zeros(nb, bs, 1, 132, dtype=torch.uint8, device="cuda")
    op(k.cuda(), slots.cuda(), kv)
    return q, kv, weights, lens.cuda(), tables.cuda(), max_model_len


def logits_reference(q, kv, weights, lens, tables, max_model_len):
    """DESIGN.md 3.1 in float64 with 1-D lengths, from the fp8 bytes."""
    B, n, H, D = q.shape
    bs = kv.shape[1]
    qf = q.cpu().view(torch.float8_e4m3fn).double().view(B * n, H, D)
    flat = kv.cpu().view(kv.shape[0], bs * 132)
    vals = flat[:, :bs * D].contiguous().view(torch.float8_e4m3fn).double()
    vals = vals.view(-1, bs, D)
    scales = flat[:, bs * D:].contiguous().view(torch.float32).double()
    out = torch.full((B * n, max_model_len), float("-inf"),
                     dtype=torch.float64)
    for b in range(B):
        t = torch.arange(int(lens[b]))
        blk = tables[b].cpu().long()[t // bs]
        k, ks = vals[blk, t % bs], scales[blk, t % bs]
        for j in range(n):
            r, lr = b * n + j, max(int(lens[b]) - n + j + 1, 0)
            s = torch.relu(qf[r] @ k[:lr].T) * weights[r].cpu().double()[:, None]
            out[r, :lr] = ks[:lr] * s.sum(0)
    return out


def test_logits_match_reference_through_both_overloads(op):
    g = torch.Generator().manual_seed(21)
    a = logits_inputs(op, g)
    got = skip_without_kernel(lambda: torch.ops.tessel.paged_mqa_logits(*a))
    out = torch.full_like(got, 7.0)
    torch.ops.tessel.paged_mqa_logits(*a, out=out)
    torch.cuda.synchronize()
    assert torch.equal(out, got)
    want = logits_reference(*a)
    got = got.cpu().double()
    assert torch.equal(torch.isinf(got), torch.isinf(want))
    x, y = got[~torch.isinf(want)], want[~torch.isinf(want)]
    calc_diff = 1 - 2 * (x * y).sum() / (x * x + y * y).sum()
    assert float(calc_diff) < 1e-3


def test_logits_compiled_is_bit_exact_against_eager(op):
    g = torch.Generator().manual_seed(22)
    a = logits_inputs(op, g)

    def step(q, kv, weights, lens, tables):
        logits = torch.ops.tessel.paged_mqa_logits(q, kv, weights * 0.5, lens,
                                                   tables, a[5])
        return logits.topk(8, dim=-1).values

    eager = skip_without_kernel(lambda: step(*a[:5]))
    got = torch.compile(step, fullgraph=True)(*a[:5])
    assert torch.equal(got, eager)


def test_metadata_matches_reference(op):
    g = torch.Generator().manual_seed(23)
    lens = torch.randint(0, 5000, (37,), generator=g, dtype=torch.int32)
    lens[3] = 0
    split, n = 256, 132
    got = skip_without_kernel(lambda: torch.ops.tessel.paged_mqa_logits_metadata(
        lens.cuda(), split, n)).cpu()
    segs = [(int(v) + split - 1) // split for v in lens]
    total, prefix = sum(segs), [0]
    for s in segs:
        prefix.append(prefix[-1] + s)
    want = []
    for i in range(n):
        gi = i * (total // n) + min(i, total % n)
        b = next((b for b in range(len(segs))
                  if prefix[b] <= gi < prefix[b + 1]), len(segs))
        want.append((b, gi - prefix[b]) if b < len(segs) else (len(segs), 0))
    want.append((len(segs), 0))
    assert got.tolist() == [list(w) for w in want]


def test_logits_cuda_graph_replays_match_eager_calls(op):
    """The .out overload captured once, replayed 20 times over fresh q and
    weights copied into the static buffers: bytes equal eager calls'."""
    g = torch.Generator().manual_seed(24)
    q, kv, weights, lens, tables, mml = logits_inputs(op, g)
    out = torch.empty(q.shape[0] * q.shape[1], mml, device="cuda")
    logits = torch.ops.tessel.paged_mqa_logits
    skip_without_kernel(lambda: logits(q, kv, weights, lens, tables, mml,
                                       out=out))
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        logits(q, kv, weights, lens, tables, mml, out=out)
    wrong = 0
    for _ in range(20):
        q.copy_((torch.randn(q.shape, generator=g) * 2).to(
            torch.float8_e4m3fn).view(torch.uint8))
        weights.copy_(torch.randn(weights.shape, generator=g))
        out.fill_(7.0)
        graph.replay()
        want = logits(q, kv, weights, lens, tables, mml)
        torch.cuda.synchronize()
        wrong += int((out.view(torch.int32) != want.view(torch.int32)).sum())
    assert wrong == 0
