"""paged_mqa_logits on a CUDA device (skipped without torch, a GPU, or
TESSEL_TEST_CUDA_BUNDLE: a bundle of sm_90 kernels), through the public C
API (tessel.Context, ctypes over tessel.h) and through torch.ops.tessel,
against a float64 reference of DESIGN.md 3.1: the -inf mask identical and
calc_diff < 1e-3 over the unmasked positions.

The matrix: H 32/64 x next_n 1/2/3/8 x block 1/16/64 x 1-D/2-D lengths,
each call over contexts 0, 1, block-1, block, block+1 and a few thousand,
shuffled block tables whose unused entries point far outside the cache, and
an output row stride larger than max_model_len; H 16 and 128 on fewer
shapes."""
import os

import pytest

torch = pytest.importorskip("torch")
import tessel  # noqa: E402
from tessel._pick_log import logged_picks  # noqa: E402
from tessel import _torch_ops  # noqa: E402

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or not os.environ.get("TESSEL_TEST_CUDA_BUNDLE"),
    reason="needs a CUDA device and TESSEL_TEST_CUDA_BUNDLE")

D = 128
# A block id no cache of these tests has: a read through it faults (and
# compute-sanitizer names it).
FAR_BLOCK = 1 << 28


@pytest.fixture(scope="module")
def ctx():
    if _torch_ops.context() is None:
        if "TESSEL_TEST_RUNTIME_LIBRARY" in os.environ:
            tessel.load_library(os.environ["TESSEL_TEST_RUNTIME_LIBRARY"])
        assert tessel.register_torch_ops("cuda")
        _torch_ops.context().load_bundle(os.environ["TESSEL_TEST_CUDA_BUNDLE"])
    c = _torch_ops.context()
    if c.device_kind != "cuda":
        pytest.skip("torch.ops.tessel is registered on another device")
    return c


def make_case(g, H, next_n, bs, lens_2d, long_ctx=2741):
    """Inputs on the GPU and the row lengths the reference uses."""
    ctxs = sorted({0, 1, max(bs - 1, 0), bs, bs + 1, long_ctx})
    B = len(ctxs)
    perm = torch.randperm(B, generator=g)
    ctxs = [ctxs[i] for i in perm.tolist()]
    mml = max(ctxs) + 37  # not a multiple of any chunk: a partial tail
    if lens_2d:
        # Each row its own length, at most its batch's context.
        lens = torch.tensor([[int(torch.randint(0, c + 1, (1,), generator=g))
                              if j else c for j in range(next_n)]
                             for c in ctxs], dtype=torch.int32)
        row_lens = lens.view(-1).tolist()
        longest = [c for c in ctxs]
    else:
        lens = torch.tensor(ctxs, dtype=torch.int32)
        row_lens = [max(c - next_n + j + 1, 0) for c in ctxs
                    for j in range(next_n)]
        longest = ctxs
    per_seq = (mml + bs - 1) // bs
    need = [(c + bs - 1) // bs for c in longest]
    nb = sum(need) + 3
    ids = torch.randperm(nb, generator=g, dtype=torch.int32)
    tables = torch.full((B, per_seq + 5), FAR_BLOCK, dtype=torch.int32)
    at = 0
    for b, n in enumerate(need):
        tables[b, :n] = ids[at:at + n]
        at += n
    values = (torch.randn(nb, bs * D, generator=g) * 2).to(
        torch.float8_e4m3fn).view(torch.uint8)
    scales = (torch.rand(nb, bs, generator=g) + 0.25).view(torch.uint8)
    kv = torch.cat([values, scales.view(nb, bs * 4)], 1).view(nb, bs, 1,
                                                             D + 4)
    q = (torch.randn(B, next_n, H, D, generator=g) * 2).to(
        torch.float8_e4m3fn).view(torch.uint8)
    weights = torch.randn(B * next_n, H, generator=g)
    args = [t.cuda() for t in (q, kv, weights, lens, tables)]
    return args, mml, row_lens


def reference(q, kv, weights, tables, mml, row_lens):
    """DESIGN.md 3.1 in float64 on the GPU, from the fp8 bytes."""
    B, n, H, _ = q.shape
    nb, bs = kv.shape[0], kv.shape[1]
    flat = kv.view(nb, bs * (D + 4))
    vals = flat[:, :bs * D].contiguous().view(torch.float8_e4m3fn)
    vals = vals.double().view(nb * bs, D)
    scales = flat[:, bs * D:].contiguous().view(torch.float32).double()
    scales = scales.view(nb * bs)
    qf = q.view(torch.float8_e4m3fn).double().view(B * n, H, D)
    out = torch.full((B * n, mml), float("-inf"), dtype=torch.float64,
                     device=q.device)
    for r, lr in enumerate(row_lens):
        if lr == 0:
            continue
        t = torch.arange(lr, device=q.device)
        slot = tables[r // n].long()[t // bs] * bs + t % bs
        s = torch.relu(qf[r] @ vals[slot].T) * weights[r].double()[:, None]
        out[r, :lr] = scales[slot] * s.sum(0)
    return out


def check(got, want):
    got = got.double()
    mask = torch.isinf(want)
    assert torch.equal(torch.isinf(got) & (got < 0), mask), (
        "-inf mask differs at %d positions" %
        int((torch.isinf(got) != mask).sum()))
    x, y = got[~mask], want[~mask]
    if x.numel():
        denom = float((x * x + y * y).sum())
        diff = 1 - 2 * float((x * y).sum()) / denom if denom else 0.0
        assert diff < 1e-3, "calc_diff = %g" % diff


def run_both(ctx, args, mml):
    """The C API (into a strided out) and torch.ops.tessel."""
    q, kv, weights, lens, tables = args
    stream = torch.cuda.current_stream().cuda_stream
    wide = torch.full((q.shape[0] * q.shape[1], mml + 24), 7.0,
                      device="cuda")
    out = wide[:, :mml]
    ctx.paged_mqa_logits(q, kv, weights, lens, tables, mml, out=out,
                         stream=stream)
    via_op = torch.ops.tessel.paged_mqa_logits(q, kv, weights, lens, tables,
                                               mml)
    torch.cuda.synchronize()
    assert bool((wide[:, mml:] == 7.0).all()), "wrote past max_model_len"
    return out, via_op


@pytest.mark.parametrize("lens_2d", [False, True], ids=["1d", "2d"])
@pytest.mark.parametrize("bs", [1, 16, 64], ids=lambda v: "bs%d" % v)
@pytest.mark.parametrize("next_n", [1, 2, 3, 8], ids=lambda v: "n%d" % v)
@pytest.mark.parametrize("H", [32, 64], ids=lambda v: "H%d" % v)
def test_matrix(ctx, H, next_n, bs, lens_2d):
    g = torch.Generator().manual_seed(H * 1000 + next_n * 100 + bs +
                                      int(lens_2d))
    args, mml, row_lens = make_case(g, H, next_n, bs, lens_2d)
    out, via_op = run_both(ctx, args, mml)
    want = reference(args[0], args[1], args[2], args[4], mml, row_lens)
    check(out, want)
    check(via_op, want)


@pytest.mark.parametrize("H,next_n", [(16, 1), (16, 4), (128, 1), (128, 2)])
def test_heads_16_and_128(ctx, H, next_n):
    g = torch.Generator().manual_seed(H + next_n)
    args, mml, row_lens = make_case(g, H, next_n, 64, False)
    out, via_op = run_both(ctx, args, mml)
    want = reference(args[0], args[1], args[2], args[4], mml, row_lens)
    check(out, want)
    check(via_op, want)


def bundle_variants(path, heads):
    """(name, knobs) of the bundle's sm_90a paged_mqa_logits code objects
    for `heads` (runtime/lib/Bundle.cpp's layout)."""
    import json
    import struct
    data = open(path, "rb").read()
    moff, msize = struct.unpack_from("<QQ", data, 32)
    man = json.loads(data[moff:moff + msize])
    return [(e["name"], dict(e["knobs"])) for e in man["code_objects"]
            if e["kernel"] == "paged_mqa_logits" and e["target"] == "sm_90a"
            and e["knobs"].get("heads") == heads]


def picked_by(ctx, call):
    """Runs call() with the pick logged; the code object it names."""
    import re
    m = re.search(r"-> (\S+) \(", logged_picks(call, torch.cuda.synchronize))
    return m.group(1) if m else None


def check_variants(ctx, tmp_path, H, next_n, bs, lens_2d, wanted):
    """Each sm_90a variant of the bundle for H that `wanted(knobs)` accepts,
    reached through a one-row tuned table (TESSEL_TUNED_DIR) naming it for
    this call's key, checked to be the one the dispatcher ran and against
    the reference. Returns how many ran."""
    g = torch.Generator().manual_seed(7 + H + next_n + bs)
    args, mml, row_lens = make_case(g, H, next_n, bs, lens_2d)
    want = reference(args[0], args[1], args[2], args[4], mml, row_lens)
    B = args[0].shape[0]
    bucket = 1 << max(0, (mml - 1).bit_length())
    header = ("arch,cu_num,heads,head_dim,kv_block_size,preshuffle,batch,"
              "next_n,context,kernel,chunk_k,waves_per_eu,split_kv,"
              "rows_per_program,num_waves,persistent,tokens_on_m,us,tbps\n")
    tried = 0
    for name, k in bundle_variants(os.environ["TESSEL_TEST_CUDA_BUNDLE"], H):
        if k.get("kv_rows_aligned", 0) != (bs % 4 == 0) or not wanted(k):
            continue
        (tmp_path / "paged_mqa_logits.csv").write_text(header + ",".join(
            str(x) for x in ("sm_90", ctx.cu_count, H, D, bs, 0, B, next_n,
                             bucket, "paged_mqa_logits", k["chunk_k"],
                             k.get("waves_per_eu", 0), 3,
                             k["rows_per_program"], k["num_waves"],
                             k.get("persistent", 0), k.get("tokens_on_m", 0),
                             0, 0)) + "\n")
        tessel.config_set("TESSEL_TUNED_DIR", str(tmp_path))
        try:
            c = tessel.Context("cuda")
            c.load_bundle(os.environ["TESSEL_TEST_CUDA_BUNDLE"])
        finally:
            tessel.config_set("TESSEL_TUNED_DIR", "")
        out = torch.full((B * next_n, mml), 7.0, device="cuda")
        ran = picked_by(c, lambda: c.paged_mqa_logits(
            *args, mml, out=out,
            stream=torch.cuda.current_stream().cuda_stream))
        assert ran == name
        check(out, want)
        tried += 1
    return tried


@pytest.mark.parametrize("H,next_n,bs,lens_2d", [
    (64, 1, 16, False), (64, 3, 64, True), (32, 2, 16, True),
    (32, 8, 64, False), (16, 4, 16, False), (128, 2, 64, True)])
def test_every_variant(ctx, tmp_path, H, next_n, bs, lens_2d):
    if not bundle_variants(os.environ["TESSEL_TEST_CUDA_BUNDLE"], H):
        pytest.skip("no sm_90a variant for H=%d in the bundle" % H)
    assert check_variants(ctx, tmp_path, H, next_n, bs, lens_2d,
                          lambda k: True) > 0


@pytest.mark.parametrize("lens_2d", [False, True], ids=["1d", "2d"])
@pytest.mark.parametrize("next_n", [1, 2, 3, 8], ids=lambda v: "n%d" % v)
@pytest.mark.parametrize("H", [32, 64], ids=lambda v: "H%d" % v)
def test_tokens_on_m_variants(ctx, tmp_path, H, next_n, lens_2d):
    """The tokens_on_m = 1 variants (K tokens on wgmma's M side) over the
    matrix at block 64: every next_n, partial row groups included, 1-D and
    2-D lengths, uneven contexts in one batch, shuffled tables."""
    if not any(k.get("tokens_on_m", 0) for _, k in bundle_variants(
            os.environ["TESSEL_TEST_CUDA_BUNDLE"], H)):
        pytest.skip("no tokens_on_m variant for H=%d in the bundle" % H)
    assert check_variants(ctx, tmp_path, H, next_n, 64, lens_2d,
                          lambda k: k.get("tokens_on_m", 0) == 1) > 0
