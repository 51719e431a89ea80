"""topk_per_row end to end on the SIMT emulator through the Python binding
(module function and Context method), against a numpy reference of
DESIGN.md 3.2: a stable sort of each row's first len_r columns by value,
descending (NaN largest, -0.0 equal to +0.0). Outputs are compared as
sets; every variant is stable, so the set must be exactly the reference's.
With sorted=True the rows must be exactly the reference's order (then -1),
which only the sorted variants give. Few long rows (R <= 8, L >= 16384)
take the persistent variant (several workgroups per row), whose pick the
runtime's log must name.

Needs the real emulator and the kernel library (see
test_paged_mqa_logits.py for the environment ctest sets).
"""
import os
import re

import numpy as np
import pytest

import tessel
from tessel._pick_log import logged_picks

LIB = os.environ.get("TESSEL_TEST_RUNTIME_LIBRARY")
EMU = os.environ.get("TESSEL_TEST_EMU_LIBRARY")
BUNDLE = os.environ.get("TESSEL_TEST_KERNEL_BUNDLE")
pytestmark = pytest.mark.skipif(
    not (LIB and EMU and BUNDLE and os.path.exists(BUNDLE)),
    reason="needs the emulator and the kernel library")

if LIB and EMU:
    tessel.load_library(LIB)
    tessel.config_set("TESSEL_EMU_LIBRARY", EMU)


@pytest.fixture(scope="module", params=["emu:gfx942", "emu:gfx950"])
def ctx(request):
    c = tessel.Context(request.param)
    c.load_bundle(BUNDLE)
    yield c
    c.close()


def row_lengths(lens, next_n, cols):
    lens = np.asarray(lens, np.int64)
    if lens.ndim == 2:
        out = lens.reshape(-1)
    else:
        j = np.arange(next_n)
        out = (lens[:, None] - next_n + j[None, :] + 1).reshape(-1)
    return np.clip(out, 0, cols)


def reference_order(row, n, k):
    """The first min(n, k) columns by value, descending, ties by column."""
    v = row[:n].astype(np.float64)
    rank = np.where(np.isnan(v), np.inf, v)  # NaN first, then by value
    nan_first = np.isnan(v).astype(np.int8)
    order = np.lexsort((np.arange(n), -rank, -nan_first))
    return order[:k]


def reference_set(row, n, k):
    return set(reference_order(row, n, k).tolist())


def check(logits, lens, next_n, k, got):
    rows, cols = logits.shape
    assert got.shape == (rows, k) and got.dtype == np.int32
    for r, n in enumerate(row_lengths(lens, next_n, cols)):
        out = got[r]
        if n <= k:
            want = np.concatenate([np.arange(n), np.full(k - n, -1)])
            assert (out == want).all(), (r, n)
            continue
        assert ((out >= 0) & (out < n)).all(), r
        assert len(set(out.tolist())) == k, r
        assert set(out.tolist()) == reference_set(logits[r], n, k), r


def test_random_rows_module_function(ctx):
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((3, 2600)).astype(np.float32)
    lens = np.array([2600, 1100, 100], np.int32)
    old = tessel._default_ctx
    tessel._default_ctx = ctx
    try:
        got = tessel.topk_per_row(logits, lens, 1, 512)
    finally:
        tessel._default_ctx = old
    check(logits, lens, 1, 512, got)


def test_ties_stable_with_out(ctx):
    rng = np.random.default_rng(2)
    logits = (rng.integers(0, 4, (2, 1800)) * 0.25).astype(np.float32)
    logits[1, ::7] = -0.0
    lens = np.array([1800, 1800], np.int32)
    out = np.full((2, 1024), 77, np.int32)
    got = ctx.topk_per_row(logits, lens, 1, k=1024, stable=True, out=out)
    assert got is out
    check(logits, lens, 1, 1024, out)


def test_next_n_2d_lengths_and_padded_stride(ctx):
    rng = np.random.default_rng(3)
    store = rng.standard_normal((4, 1300)).astype(np.float32)
    logits = store[:, :1200]  # row stride 1300 > width 1200
    lens = np.array([[1200, 513], [0, 900]], np.int32)
    got = ctx.topk_per_row(logits, lens, 2, 512)
    check(logits, lens, 2, 512, got)


def test_next_n_1d_lengths(ctx):
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((3, 700)).astype(np.float32)
    lens = np.array([514], np.int32)  # rows see 512, 513, 514 columns
    got = ctx.topk_per_row(logits, lens, 3, 512)
    check(logits, lens, 3, 512, got)


def test_bad_arguments_are_refused(ctx):
    logits = np.zeros((2, 600), np.float32)
    lens = np.array([600, 600], np.int32)
    with pytest.raises(tessel.TesselError, match="k must be"):
        ctx.topk_per_row(logits, lens, 1, 100)
    with pytest.raises(tessel.TesselError, match="rows"):
        ctx.topk_per_row(logits, lens[:1], 1, 512)
    with pytest.raises(tessel.TesselError, match="greater than"):
        ctx.topk_per_row(logits, np.array([600, 601], np.int32), 1, 512)
    with pytest.raises(tessel.TesselError, match="negative"):
        ctx.topk_per_row(logits, np.array([600, -1], np.int32), 1, 512)
    with pytest.raises(tessel.TesselError, match="dtype"):
        ctx.topk_per_row(logits.astype(np.float16), lens, 1, 512)


def check_sorted(logits, lens, next_n, k, got):
    rows, cols = logits.shape
    assert got.shape == (rows, k) and got.dtype == np.int32
    for r, n in enumerate(row_lengths(lens, next_n, cols)):
        order = reference_order(logits[r], n, k)
        want = np.concatenate([order, np.full(k - len(order), -1)])
        assert (got[r] == want).all(), (r, n)


def test_sorted_rows_are_in_the_reference_order(ctx):
    """sorted=True through the module function and the Context method:
    ties, -0.0, +-inf and NaN in a padded row, a short row and an empty
    one."""
    rng = np.random.default_rng(5)
    store = (rng.integers(-3, 4, (3, 1300)) * 0.5).astype(np.float32)
    store[0, ::11] = -0.0
    store[0, 5], store[0, 6], store[0, 7] = np.inf, -np.inf, np.nan
    logits = store[:, :1200]  # row stride 1300 > width 1200
    lens = np.array([1200, 300, 0], np.int32)
    old = tessel._default_ctx
    tessel._default_ctx = ctx
    try:
        got = tessel.topk_per_row(logits, lens, 1, 512, sorted=True)
    finally:
        tessel._default_ctx = old
    check_sorted(logits, lens, 1, 512, got)
    out = np.full((3, 512), 77, np.int32)
    assert ctx.topk_per_row(logits, lens, 1, 512, stable=True, sorted=True,
                            out=out) is out
    check_sorted(logits, lens, 1, 512, out)


def picked(call):
    """Runs call() with the pick logged: the '-> NAME (knobs)' it names."""
    m = re.search(r"topk_per_row .*-> (\S+ \([^)]*\))", logged_picks(call))
    return m.group(1) if m else ""


def test_few_long_rows_take_the_persistent_variant(ctx):
    """Two rows of 16384 columns (random, and ties; one shorter): the
    heuristic runs the persistent variant, sorted or not."""
    rng = np.random.default_rng(6)
    logits = rng.standard_normal((2, 16384)).astype(np.float32)
    logits[1] = (rng.integers(0, 5, 16384) * 0.5).astype(np.float32)
    lens = np.array([16384, 9000], np.int32)
    got = []
    pick = picked(lambda: got.append(ctx.topk_per_row(logits, lens, 1, 512)))
    assert "persistent=1" in pick, pick
    check(logits, lens, 1, 512, got[0])
    pick = picked(lambda: got.append(ctx.topk_per_row(
        logits, lens, 1, 512, sorted=True)))
    assert "persistent=1" in pick, pick
    check_sorted(logits, lens, 1, 512, got[1])
