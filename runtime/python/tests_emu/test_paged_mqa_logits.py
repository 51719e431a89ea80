"""paged_mqa_logits and its schedule end to end on the SIMT emulator, through
the Python binding, against float64 numpy references (DESIGN.md 3.1, 3.3).

Needs the real emulator and the kernel library: ctest sets
TESSEL_TEST_RUNTIME_LIBRARY, TESSEL_TEST_EMU_LIBRARY and
TESSEL_TEST_KERNEL_BUNDLE. Skips while the library has no logits or
metadata kernel for the target. The K cache is written by the library's
own indexer_k_cache_write, plain and preshuffled, so the preshuffled case
is also the writer/reader round trip. Checks: the -inf positions identical,
calc_diff = 1 - 2 sum(xy) / sum(x^2 + y^2) < 1e-3 over the rest.
"""
import math
import os

import numpy as np
import pytest

import tessel

LIB = os.environ.get("TESSEL_TEST_RUNTIME_LIBRARY")
EMU = os.environ.get("TESSEL_TEST_EMU_LIBRARY")
BUNDLE = os.environ.get("TESSEL_TEST_KERNEL_BUNDLE")
pytestmark = pytest.mark.skipif(
    not (LIB and EMU and BUNDLE and os.path.exists(BUNDLE)),
    reason="needs the emulator and the kernel library")

if LIB and EMU:
    tessel.load_library(LIB)
    tessel.config_set("TESSEL_EMU_LIBRARY", EMU)


def fp8_table(fnuz):
    """Every code's value from the format's definition (NaN codes: nan)."""
    vals = np.zeros(256)
    bias = 8 if fnuz else 7
    for c in range(256):
        s, e, m = c >> 7, (c >> 3) & 15, c & 7
        if (fnuz and c == 0x80) or (not fnuz and e == 15 and m == 7):
            vals[c] = np.nan
            continue
        v = (math.ldexp(m / 8, 1 - bias) if e == 0
             else math.ldexp(1 + m / 8, e - bias))
        vals[c] = -v if s else v
    return vals


def quantize(x, table):
    """Nearest finite code of each value (ties: the even code)."""
    finite = np.where(np.isnan(table), np.inf, table)
    d = np.abs(x.reshape(-1, 1) - finite.reshape(1, -1))
    d = d + (np.arange(256) & 1) * 1e-12  # ties to even
    return np.argmin(d, axis=1).astype(np.uint8).reshape(x.shape)


@pytest.fixture(scope="module", params=["emu:gfx942", "emu:gfx950"])
def ctx(request):
    c = tessel.Context(request.param)
    c.load_bundle(BUNDLE)
    yield c
    c.close()


def row_lengths(lens, next_n):
    """len_r per row r = b * next_n + j (negative counts as 0)."""
    lens = np.asarray(lens, dtype=np.int64)
    if lens.ndim == 2:
        return np.maximum(lens.reshape(-1), 0)
    B = lens.shape[0]
    j = np.arange(next_n)
    return np.maximum(lens.reshape(B, 1) - next_n + j.reshape(1, -1) + 1,
                      0).reshape(-1)


def reference_logits(qb, cache, weights, lens, tables, mml, table, preshuffle):
    B, next_n, H, D = qb.shape
    nb, bs = cache.shape[:2]
    q = table[qb].reshape(B * next_n, H, D)
    flat = cache.reshape(nb, bs * 132)
    lr = row_lengths(lens, next_n)
    out = np.full((B * next_n, mml), -np.inf)
    o = np.arange(bs)
    d = np.arange(D)
    if preshuffle:
        off = ((o[:, None] // 16) * 8 + d[None, :] // 16) * 256 + \
              (o[:, None] % 16) * 16 + d[None, :] % 16
    else:
        off = o[:, None] * 128 + d[None, :]
    kblocks = table[flat[:, off]]  # [nb, bs, D]
    kscale = flat[:, bs * 128:].copy().view(np.float32).astype(np.float64)
    for r in range(B * next_n):
        b = r // next_n
        n = int(lr[r])
        if n == 0:
            continue
        t = np.arange(n)
        blk = tables[b, t // bs]
        k = kblocks[blk, t % bs]  # [n, D]
        s = kscale[blk, t % bs]
        dots = np.maximum(q[r] @ k.T, 0)  # [H, n]
        out[r, :n] = s * (weights[r].astype(np.float64) @ dots)
    return out


def calc_diff(x, y):
    x = x.astype(np.float64)
    y = y.astype(np.float64)
    denom = (x * x + y * y).sum()
    return 0.0 if denom == 0 else 1 - 2 * (x * y).sum() / denom


def make_case(rng, ctx, B, next_n, H, bs, lens, lens_2d, preshuffle, mml):
    fnuz = ctx.arch == "gfx942"
    table = fp8_table(fnuz)
    longest = int(np.max(lens)) if np.size(lens) else 0
    per_seq = max(1, -(-max(longest, mml) // bs))
    nb = B * per_seq + 3
    # Shuffled block tables over a pool with spare blocks.
    perm = rng.permutation(nb)[:B * per_seq].astype(np.int32)
    tables = perm.reshape(B, per_seq)
    # K written by the library's writer (plain or preshuffled).
    k = rng.normal(0, 1, size=(nb * bs, 128)).astype(np.float32)
    cache = np.zeros((nb, bs, 1, 132), dtype=np.uint8)
    ctx.indexer_k_cache_write(k, np.arange(nb * bs, dtype=np.int64), cache,
                              preshuffle=preshuffle)
    qf = rng.normal(0, 1, size=(B, next_n, H, 128))
    qb = quantize(qf * 8, table)
    weights = rng.uniform(-1, 1, size=(B * next_n, H)).astype(np.float32)
    lens = np.asarray(lens, dtype=np.int32)
    if lens_2d:
        lens = np.stack([np.maximum(lens - next_n + j + 1, 0)
                         for j in range(next_n)], axis=1).astype(np.int32)
    return qb, cache, weights, lens, tables, table


_PROBED = {}


def require(ctx, op):
    """Skips (before any costly setup) while the library lacks op's kernel:
    a tiny valid call tells."""
    key = (ctx.arch, op)
    if key not in _PROBED:
        one = np.zeros((1,), np.int32)
        try:
            if op == "paged_mqa_logits":
                ctx.paged_mqa_logits(
                    np.zeros((1, 1, 16, 128), np.uint8),
                    np.zeros((1, 1, 1, 132), np.uint8),
                    np.zeros((1, 16), np.float32), one,
                    np.zeros((1, 1), np.int32), 1)
            else:
                ctx.paged_mqa_logits_metadata(one, 64, 1)
            _PROBED[key] = True
        except tessel.TesselError as e:
            if "no code object" not in str(e):
                raise
            _PROBED[key] = False
    if not _PROBED[key]:
        pytest.skip("the kernel library has no %s kernel for %s yet" %
                    (op, ctx.arch))


def skip_without_kernel(exc):
    if "no code object" in str(exc):
        pytest.skip("the kernel library has no kernel for this op yet")
    raise exc


CASES = [
    # B, next_n, H, block, context lengths per batch, 2-D, preshuffle
    (1, 1, 32, 16, [0], False, False),
    (2, 1, 32, 16, [1, 15], False, False),
    (2, 2, 64, 16, [16, 17], True, False),
    (2, 3, 32, 64, [63, 300], False, False),
    (2, 2, 32, 64, [64, 65], True, True),
    (1, 8, 32, 1, [40], False, False),
    (2, 1, 64, 16, [500, 3], False, True),
]


@pytest.mark.parametrize("B,next_n,H,bs,lens,lens_2d,preshuffle", CASES)
def test_logits_match_the_reference(ctx, B, next_n, H, bs, lens, lens_2d,
                                    preshuffle):
    require(ctx, "paged_mqa_logits")
    rng = np.random.default_rng(B * 1000 + next_n * 100 + H + bs)
    mml = max(lens) + 5
    qb, cache, w, cl, tables, table = make_case(
        rng, ctx, B, next_n, H, bs, lens, lens_2d, preshuffle, mml)
    try:
        out = ctx.paged_mqa_logits(qb, cache, w, cl, tables, mml,
                                   preshuffle=preshuffle)
    except tessel.TesselError as e:
        skip_without_kernel(e)
    want = reference_logits(qb, cache, w, cl, tables, mml, table, preshuffle)
    assert out.shape == want.shape
    inf_got = np.isneginf(out)
    inf_want = np.isneginf(want)
    assert (inf_got == inf_want).all(), np.argwhere(inf_got != inf_want)[:5]
    m = ~inf_want
    assert np.isfinite(out[m]).all()
    assert calc_diff(out[m], want[m]) < 1e-3


def test_no_tail_leaves_the_tail(ctx):
    require(ctx, "paged_mqa_logits")
    rng = np.random.default_rng(5)
    B, next_n, H, bs = 1, 2, 32, 16
    qb, cache, w, cl, tables, table = make_case(
        rng, ctx, B, next_n, H, bs, [20], False, False, 48)
    out = np.full((B * next_n, 64), 7.0, dtype=np.float32)[:, :48]
    try:
        ctx.paged_mqa_logits(qb, cache, w, cl, tables, 48, write_tail=0,
                             out=out)
    except tessel.TesselError as e:
        skip_without_kernel(e)
    want = reference_logits(qb, cache, w, cl, tables, 48, table, False)
    finite = np.isfinite(want)
    assert (out[~finite] == 7.0).all()
    assert calc_diff(out[finite], want[finite]) < 1e-3


def reference_schedule(lens, split, n):
    lens = np.asarray(lens, dtype=np.int64)
    lb = lens.max(axis=1) if lens.ndim == 2 else lens
    B = lb.shape[0]
    segs = -(-lb // split)
    prefix = np.concatenate([[0], np.cumsum(segs)])
    S = int(prefix[-1])
    q, rem = divmod(S, n)
    out = np.zeros((n + 1, 2), dtype=np.int64)
    for i in range(n):
        g = i * q + min(i, rem)
        if g == S:
            out[i] = (B, 0)
            continue
        b = int(np.searchsorted(prefix, g, side="right") - 1)
        while segs[b] == 0:
            b += 1
        out[i] = (b, g - prefix[b])
    out[n] = (B, 0)
    return out


@pytest.mark.parametrize("lens,split,n", [
    ([5], 64, 4),
    ([0, 0, 0], 64, 8),
    ([1000, 3, 0, 5000, 64], 64, 16),
    ([[40, 41], [7, 8], [0, 1]], 16, 5),
    (list(range(0, 4096 * 3, 3)), 256, 304),
])
def test_metadata_matches_the_reference(ctx, lens, split, n):
    require(ctx, "paged_mqa_logits_metadata")
    cl = np.asarray(lens, dtype=np.int32)
    try:
        sched = ctx.paged_mqa_logits_metadata(cl, split, n)
    except tessel.TesselError as e:
        skip_without_kernel(e)
    assert sched.shape == (n + 1, 2)
    np.testing.assert_array_equal(sched, reference_schedule(lens, split, n))
