"""topk_per_row on a CUDA device (skipped without torch, a GPU, or
TESSEL_TEST_CUDA_BUNDLE: a bundle with the sm_90 topk_per_row kernels),
through the C entry point tessel_topk_per_row, the generic Context method
and torch.ops.tessel.topk_per_row, against torch.topk as an independent
reference (float64, on the CPU, so that denormals compare exactly).

Outputs are compared as sets (DESIGN.md 3.2): k distinct indices, each
inside the row's first len_r columns, every selected value >= every
unselected one; with stable=True exactly the reference set, whose ties at
the k-th value go to the smaller columns. Rows with len_r <= k hold
0..len_r-1, then -1. With sorted=True, rows must be exactly torch's stable
descending sort. Also: 100 replays of a CUDA graph of the op on
changing logits and lengths, each checked, and torch.compile(fullgraph=True)
against eager calls. The persistent variant (several workgroups per row,
joined by grid barriers) is forced through a context whose one-row tuned
table names it, checked to be the one that ran, on the same cases and in
a CUDA graph replayed 100 times (which proves its workspace stays zero).
"""
import ctypes
import os
import re

import pytest

torch = pytest.importorskip("torch")
import tessel  # noqa: E402
from tessel._pick_log import logged_picks  # noqa: E402
from tessel import _torch_ops  # noqa: E402

BUNDLE = os.environ.get("TESSEL_TEST_CUDA_BUNDLE")
pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or not BUNDLE,
    reason="needs a CUDA device and TESSEL_TEST_CUDA_BUNDLE")


@pytest.fixture(scope="module")
def ctx():
    if _torch_ops.context() is None:
        if "TESSEL_TEST_RUNTIME_LIBRARY" in os.environ:
            tessel.load_library(os.environ["TESSEL_TEST_RUNTIME_LIBRARY"])
        assert tessel.register_torch_ops("cuda")
        _torch_ops.context().load_bundle(BUNDLE)
    c = _torch_ops.context()
    if c.device_kind != "cuda":
        pytest.skip("torch.ops.tessel is registered on another device")
    return c


def c_api(ctx, logits, lens, next_n, k, stable, out):
    """tessel_topk_per_row itself, on torch's current stream."""
    lib = tessel.load_library()
    fn = lib.tessel_topk_per_row
    fn.argtypes = [ctypes.c_void_p, ctypes.POINTER(tessel._Tensor),
                   ctypes.POINTER(tessel._Tensor), ctypes.c_int32,
                   ctypes.c_int32, ctypes.c_uint32,
                   ctypes.POINTER(tessel._Tensor), ctypes.c_void_p]
    dev = tessel._DL_CUDA
    tl, _ = tessel._describe("logits", logits, dev)
    tc, _ = tessel._describe("context_lens", lens, dev)
    ti, _ = tessel._describe("indices", out, dev, writable=True)
    stream = torch.cuda.current_stream().cuda_stream
    status = fn(ctx._h, ctypes.byref(tl), ctypes.byref(tc), next_n, k,
                1 if stable else 0, ctypes.byref(ti), stream)
    if status != 0:
        raise tessel.TesselError(status, lib.tessel_last_error().decode())


def run(path, ctx, logits, lens, next_n, k, stable):
    if path == "torch_op":
        return torch.ops.tessel.topk_per_row(logits, lens, next_n, k,
                                             stable=stable)
    out = torch.full((logits.shape[0], k), -7, dtype=torch.int32,
                     device="cuda")
    if path == "c_api":
        c_api(ctx, logits, lens, next_n, k, stable, out)
    else:
        ctx.topk_per_row(logits, lens, next_n, k, stable=stable, out=out,
                         stream=torch.cuda.current_stream().cuda_stream)
    return out


def row_lengths(lens, next_n, cols):
    lens = lens.cpu().long()
    if lens.dim() == 2:
        out = lens.reshape(-1)
    else:
        j = torch.arange(next_n)
        out = (lens[:, None] - next_n + j[None, :] + 1).reshape(-1)
    return out.clamp(0, cols).tolist()


def check_row(x, n, k, got, stable, where):
    """x: the row's values (float64, CPU); got: its k indices (CPU)."""
    if n <= k:
        want = torch.cat([torch.arange(n), torch.full((k - n,), -1)])
        assert torch.equal(got.long(), want), (where, n)
        return
    sel = got.long()
    assert bool(((sel >= 0) & (sel < n)).all()), (where, n, "out of range")
    picked = torch.zeros(n, dtype=torch.bool)
    picked[sel] = True
    assert int(picked.sum()) == k, (where, n, "repeated indices")
    v = x[:n]
    assert float(v[picked].min()) >= float(v[~picked].max()), (where, n)
    if stable:
        # torch.topk gives the k-th value; the ties at it go to the
        # smaller columns.
        kth = torch.topk(v, k).values[-1]
        want = v > kth
        need = k - int(want.sum())
        want[(v == kth).nonzero().view(-1)[:need]] = True
        assert torch.equal(picked, want), (where, n, "not the stable set")


def check(logits, lens, next_n, k, got, stable):
    rows, cols = logits.shape
    assert got.shape == (rows, k) and got.dtype == torch.int32
    x, got = logits.double().cpu(), got.cpu()
    for r, n in enumerate(row_lengths(lens, next_n, cols)):
        check_row(x[r], n, k, got[r], stable, r)


def strided(values, pad):
    """values [R, L] on the GPU with a row stride of L + pad."""
    R, L = values.shape
    big = torch.full((R, L + pad), float("nan"), device="cuda")
    big[:, :L] = values.cuda()
    return big[:, :L]


def special_row(g, L):
    """+-inf, -0.0 and +0.0, denormals of both signs and normal values."""
    tiny = torch.finfo(torch.float32).tiny
    pool = torch.tensor([float("inf"), float("-inf"), -0.0, 0.0, tiny / 4,
                         -tiny / 4, tiny / 1024, -tiny / 1024, 1e-38, -1.5,
                         2.5, 3e38], dtype=torch.float32)
    return pool[torch.randint(0, len(pool), (L,), generator=g)]


PATHS = ["c_api", "context", "torch_op"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("stable", [False, True])
def test_random_rows(ctx, path, stable):
    g = torch.Generator().manual_seed(1)
    R, L, k = 8, 32768, 2048
    logits = torch.randn(R, L, generator=g).cuda()
    lens = torch.randint(k + 1, L + 1, (R,), generator=g, dtype=torch.int32)
    lens[0] = L
    got = run(path, ctx, logits, lens.cuda(), 1, k, stable)
    check(logits, lens, 1, k, got, stable)


@pytest.mark.parametrize("k", [512, 1024, 2048])
def test_ties_all_equal_and_special_values(ctx, k):
    g = torch.Generator().manual_seed(2)
    L = 20000
    rows = [torch.randint(0, 6, (L,), generator=g).float(),  # many ties
            torch.full((L,), 1.25),  # all equal
            torch.zeros(L),  # all +0.0
            -torch.zeros(L),  # all -0.0: equal to +0.0
            special_row(g, L), special_row(g, L)]
    mixed = torch.zeros(L)
    mixed[1::2] = -0.0
    rows.append(mixed)  # +0.0 and -0.0 interleaved: all ties
    logits = torch.stack(rows).cuda()
    lens = torch.full((len(rows),), L, dtype=torch.int32)
    for stable in (False, True):
        got = run("torch_op", ctx, logits, lens.cuda(), 1, k, stable)
        check(logits, lens, 1, k, got, stable)


@pytest.mark.parametrize("k", [512, 1024, 2048])
def test_lengths_around_k(ctx, k):
    """len_r in {0, 1, k-1, k, k+1, L} as 2-D lengths with next_n = 3."""
    g = torch.Generator().manual_seed(3)
    L = 3 * k
    lens = torch.tensor([[0, 1, k - 1], [k, k + 1, L]], dtype=torch.int32)
    logits = torch.randn(6, L, generator=g).cuda()
    got = run("torch_op", ctx, logits, lens.cuda(), 3, k, True)
    check(logits, lens, 3, k, got, True)


def test_one_d_lengths_are_causal_in_the_next_n_group(ctx):
    g = torch.Generator().manual_seed(4)
    B, next_n, L, k = 3, 4, 9000, 2048
    lens = torch.tensor([9000, 2050, 2], dtype=torch.int32)
    logits = torch.randn(B * next_n, L, generator=g).cuda()
    for path in PATHS:
        got = run(path, ctx, logits, lens.cuda(), next_n, k, True)
        check(logits, lens, next_n, k, got, True)


def test_long_rows(ctx):
    g = torch.Generator().manual_seed(5)
    L, k = 262144, 2048
    logits = torch.randn(3, L, generator=g)
    logits[2] = torch.randint(0, 100, (L,), generator=g).float()
    lens = torch.tensor([L, L - 1, L], dtype=torch.int32)
    got = run("torch_op", ctx, logits.cuda(), lens.cuda(), 1, k, True)
    check(logits, lens, 1, k, got, True)


@pytest.mark.parametrize("pad", [37, 512])
def test_padded_row_stride(ctx, pad):
    """Padding holds NaN, which would outrank every value if read."""
    g = torch.Generator().manual_seed(6)
    R, L, k = 5, 10000, 1024
    logits = strided(torch.randn(R, L, generator=g), pad)
    assert logits.stride(0) == L + pad
    lens = torch.tensor([L, 5000, 1025, 1024, 3], dtype=torch.int32)
    for path in PATHS:
        got = run(path, ctx, logits, lens.cuda(), 1, k, True)
        check(logits, lens, 1, k, got, True)


def test_many_rows(ctx):
    g = torch.Generator().manual_seed(7)
    R, L, k = 300, 8192, 2048
    logits = torch.randn(R, L, generator=g).cuda()
    lens = torch.randint(0, L + 1, (R,), generator=g, dtype=torch.int32)
    got = run("torch_op", ctx, logits, lens.cuda(), 1, k, False)
    check(logits, lens, 1, k, got, False)


def test_cuda_graph_replays_are_each_correct(ctx):
    """The .out overload captured once and replayed 100 times, the logits
    and the lengths changed before each replay: every replay's indices pass
    the stable check for the data of that replay."""
    g = torch.Generator().manual_seed(8)
    R, L, k = 4, 16384, 2048
    logits = torch.randn(R, L, generator=g).cuda()
    lens = torch.full((R,), L, dtype=torch.int32, device="cuda")
    out = torch.empty(R, k, dtype=torch.int32, device="cuda")
    op = torch.ops.tessel.topk_per_row
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        op(logits, lens, 1, k, stable=True, out=out)  # warm-up
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        op(logits, lens, 1, k, stable=True, out=out)
    for i in range(100):
        new = torch.randn(R, L, generator=g)
        if i % 3 == 0:
            new = torch.randint(0, 4, (R, L), generator=g).float()
        new_lens = torch.randint(0, L + 1, (R,), generator=g,
                                 dtype=torch.int32)
        logits.copy_(new)
        lens.copy_(new_lens)
        out.fill_(-7)
        graph.replay()
        torch.cuda.synchronize()
        check(new, new_lens, 1, k, out, True)


def test_compiled_step_equals_eager(ctx):
    """The op inside a compiled step (the values gathered at its indices,
    no reduction whose order inductor may change): bit-exact."""
    def step(x, lens):
        idx = torch.ops.tessel.topk_per_row(x * 2.0 + 1.0, lens, 1, 1024,
                                            stable=True)
        return idx, torch.gather(x, 1, idx.long().clamp_min(0))

    g = torch.Generator().manual_seed(9)
    x = torch.randn(6, 5000, generator=g).cuda()
    lens = torch.tensor([5000, 4000, 1025, 1024, 10, 0], dtype=torch.int32,
                        device="cuda")
    eager = step(x, lens)
    got = torch.compile(step, fullgraph=True)(x, lens)
    assert torch.equal(got[0], eager[0])
    assert torch.equal(got[1], eager[1])


@pytest.mark.parametrize("k", [512, 2048])
def test_sorted_rows_are_in_descending_order(ctx, k):
    """sorted=True: exactly torch's stable descending sort of the row's
    first len_r columns (ties by the smaller column, -0.0 equal to +0.0),
    cut to k; a short row's columns sorted, then -1."""
    g = torch.Generator().manual_seed(10)
    L = 3 * k
    logits = torch.stack([torch.randn(L, generator=g),
                          torch.randint(0, 6, (L,), generator=g).float(),
                          special_row(g, L), torch.randn(L, generator=g)])
    lens = torch.tensor([L, L, L, k // 2], dtype=torch.int32)
    got = torch.ops.tessel.topk_per_row(logits.cuda(), lens.cuda(), 1, k,
                                        stable=True, sorted=True).cpu()
    for r, n in enumerate(lens.tolist()):
        v = logits[r, :n].double()
        order = torch.sort(v, descending=True, stable=True).indices[:k]
        want = torch.cat([order, torch.full((k - len(order),), -1)])
        assert torch.equal(got[r].long(), want), (r, n)


def test_refusals_name_the_problem(ctx):
    logits = torch.randn(2, 4096, device="cuda")
    lens = torch.full((2,), 4096, dtype=torch.int32, device="cuda")
    with pytest.raises(RuntimeError, match="tessel::topk_per_row: k must be "
                       "one of 512, 1024, 2048"):
        torch.ops.tessel.topk_per_row(logits, lens, 1, 100)
    with pytest.raises(RuntimeError, match="rank 1, want 2"):
        torch.ops.tessel.topk_per_row(logits[0], lens, 1, 512)


# ---- the persistent variant, forced ----------------------------------------

PERSISTENT_WAVES = 16
TABLE_HEADER = "arch,cu_num,k,rows,cols,kernel,num_waves,persistent,parts,us"


@pytest.fixture(scope="module")
def persistent_ctx(ctx, tmp_path_factory):
    """A cuda context whose tuned table has one row per k naming the
    persistent variant of PERSISTENT_WAVES warps (parts 0: the runtime's
    rule), which the nearest-bucket rule takes for every call it serves."""
    d = tmp_path_factory.mktemp("persistent_table")
    rows = ["sm_90,%d,%d,1,1,topk_per_row,%d,1,0,0" % (
        ctx.cu_count, k, PERSISTENT_WAVES) for k in (512, 1024, 2048)]
    (d / "topk_per_row.csv").write_text(
        TABLE_HEADER + "\n" + "\n".join(rows) + "\n")
    tessel.config_set("TESSEL_TUNED_DIR", str(d))
    try:
        c = tessel.Context("cuda")
        c.load_bundle(BUNDLE)
    finally:
        tessel.config_set("TESSEL_TUNED_DIR", "")
    probe = torch.zeros(1, 4096, device="cuda")
    lens = torch.full((1,), 4096, dtype=torch.int32, device="cuda")
    if "persistent=1" not in picked(c, lambda: run_on(c, probe, lens, 1,
                                                      2048, True)):
        pytest.skip("the bundle has no persistent sm_90 topk_per_row variant")
    yield c
    c.close()


def picked(c, call):
    """Runs call() with the pick logged: the '-> NAME (knobs)' it names."""
    log = logged_picks(call, torch.cuda.synchronize)
    m = re.search(r"topk_per_row .*-> (\S+ \([^)]*\))", log)
    return m.group(1) if m else ""


def run_on(c, logits, lens, next_n, k, stable, sorted=False, stream=None):
    out = torch.full((logits.shape[0], k), -7, dtype=torch.int32,
                     device="cuda")
    if stream is None:
        stream = torch.cuda.current_stream().cuda_stream
    c.topk_per_row(logits, lens, next_n, k, stable=stable, sorted=sorted,
                   out=out, stream=stream)
    return out


def run_persistent(c, logits, lens, next_n, k, stable, sorted=False):
    """The call on c, asserting that the persistent variant served it."""
    got = []
    pick = picked(c, lambda: got.append(run_on(c, logits, lens, next_n, k,
                                               stable, sorted)))
    assert "persistent=1" in pick, pick
    return got[0]


@pytest.mark.parametrize("stable", [False, True])
@pytest.mark.parametrize("R", [1, 3, 8])
def test_persistent_random_rows_and_lengths(persistent_ctx, R, stable):
    g = torch.Generator().manual_seed(20 + R)
    L, k = 40000, 2048
    logits = torch.randn(R, L, generator=g).cuda()
    lens = torch.randint(k + 2, L + 1, (R,), generator=g, dtype=torch.int32)
    lens[:5] = torch.tensor([L, 0, k + 1, k - 1, 1][:R])
    got = run_persistent(persistent_ctx, logits, lens.cuda(), 1, k, stable)
    check(logits, lens, 1, k, got, stable)


@pytest.mark.parametrize("k", [512, 2048])
def test_persistent_ties_all_equal_and_special_values(persistent_ctx, k):
    g = torch.Generator().manual_seed(21)
    L = 30000
    logits = torch.stack([torch.randint(0, 6, (L,), generator=g).float(),
                          torch.full((L,), 1.25), special_row(g, L),
                          -torch.zeros(L)]).cuda()
    lens = torch.tensor([L, L, L, k], dtype=torch.int32)
    for stable in (False, True):
        got = run_persistent(persistent_ctx, logits, lens.cuda(), 1, k,
                             stable)
        check(logits, lens, 1, k, got, stable)


def test_persistent_next_n_and_padded_stride(persistent_ctx):
    """2-D and 1-D lengths with next_n = 3, rows padded with NaN."""
    g = torch.Generator().manual_seed(22)
    L, k = 20000, 1024
    logits = strided(torch.randn(6, L, generator=g), 37)
    two_d = torch.tensor([[0, 1, k - 1], [k, k + 1, L]], dtype=torch.int32)
    one_d = torch.tensor([L, k + 1], dtype=torch.int32)
    for lens in (two_d, one_d):
        got = run_persistent(persistent_ctx, logits, lens.cuda(), 3, k, True)
        check(logits, lens, 3, k, got, True)


def test_persistent_sorted_rows(persistent_ctx):
    g = torch.Generator().manual_seed(23)
    L, k = 24000, 2048
    logits = torch.stack([torch.randn(L, generator=g),
                          torch.randint(0, 6, (L,), generator=g).float()])
    lens = torch.tensor([L, L], dtype=torch.int32)
    got = run_persistent(persistent_ctx, logits.cuda(), lens.cuda(), 1, k,
                         True, sorted=True).cpu()
    for r in range(2):
        order = torch.sort(logits[r].double(), descending=True,
                           stable=True).indices[:k]
        assert torch.equal(got[r].long(), order), r


def test_persistent_more_rows_than_it_serves_take_another(persistent_ctx):
    """65 rows: the persistent row is passed over (it serves at most 64)."""
    g = torch.Generator().manual_seed(24)
    L, k = 4096, 512
    logits = torch.randn(65, L, generator=g).cuda()
    lens = torch.full((65,), L, dtype=torch.int32)
    got = []
    pick = picked(persistent_ctx, lambda: got.append(run_on(
        persistent_ctx, logits, lens.cuda(), 1, k, True)))
    assert "persistent=0" in pick or "persistent" not in pick, pick
    check(logits, lens, 1, k, got[0], True)


def test_persistent_cuda_graph_replays_are_each_correct(persistent_ctx):
    """Captured once on a stream it ran on before (whose workspace then
    exists), replayed 100 times on changing logits and lengths: every
    replay is right, so the kernel leaves its workspace zero."""
    g = torch.Generator().manual_seed(25)
    R, L, k = 4, 65536, 2048
    logits = torch.randn(R, L, generator=g).cuda()
    lens = torch.full((R,), L, dtype=torch.int32, device="cuda")
    out = torch.empty(R, k, dtype=torch.int32, device="cuda")
    c = persistent_ctx
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        pick = picked(c, lambda: c.topk_per_row(
            logits, lens, 1, k, stable=True, out=out,
            stream=side.cuda_stream))
    assert "persistent=1" in pick, pick
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side):
        c.topk_per_row(logits, lens, 1, k, stable=True, out=out,
                       stream=side.cuda_stream)
    for i in range(100):
        new = torch.randn(R, L, generator=g)
        if i % 3 == 0:
            new = torch.randint(0, 4, (R, L), generator=g).float()
        new_lens = torch.randint(0, L + 1, (R,), generator=g,
                                 dtype=torch.int32)
        logits.copy_(new)
        lens.copy_(new_lens)
        out.fill_(-7)
        graph.replay()
        torch.cuda.synchronize()
        check(new, new_lens, 1, k, out, True)
