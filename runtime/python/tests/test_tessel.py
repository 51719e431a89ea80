"""Tests of the Python binding on the emu device with the test plugins.

Run by ctest (label python), which sets TESSEL_TEST_RUNTIME_LIBRARY,
TESSEL_TEST_FAKE_EMU and TESSEL_TEST_BUNDLE (a gfx942 bundle for the fake
emulator, f32 and bf16 variants).
"""
import math
import os
import struct

import numpy as np
import pytest

import tessel

tessel.load_library(os.environ["TESSEL_TEST_RUNTIME_LIBRARY"])
tessel.config_set("TESSEL_EMU_LIBRARY", os.environ["TESSEL_TEST_FAKE_EMU"])


def fnuz_values():
    """Decodes every e4m3fnuz code from its definition (bias 8, 0x80 NaN)."""
    vals = {}
    for c in range(256):
        if c == 0x80:
            continue
        s, e, m = c >> 7, (c >> 3) & 15, c & 7
        v = math.ldexp(m / 8, -7) if e == 0 else math.ldexp(1 + m / 8, e - 8)
        vals[c] = -v if s else v
    return vals


FNUZ = fnuz_values()


def encode(x):
    """Nearest code, ties to the even code, saturating at 240."""
    a = min(abs(x), 240.0)
    best = min((c for c in range(128)),
               key=lambda c: (abs(FNUZ[c] - a), c & 1))
    return best | 0x80 if x < 0 and best != 0 else best


@pytest.fixture
def ctx():
    c = tessel.Context("emu:gfx942")
    c.load_bundle(os.environ["TESSEL_TEST_BUNDLE"])
    yield c
    c.close()


def test_context_properties(ctx):
    assert ctx.device_kind == "emu"
    assert ctx.arch == "gfx942"
    assert ctx.cu_count == 304


def test_writes_the_reference_through_dlpack(ctx):
    rng = np.random.default_rng(7)
    T, nb, bs = 6, 2, 4
    wide = rng.normal(0, 3, size=(T, 136)).astype(np.float32)
    k = wide[:, :128]  # row stride 136 elements
    slots = np.array([5, -1, 0, 7, 2, 3], dtype=np.int64)
    cache = np.zeros((nb, bs, 1, 132), dtype=np.uint8)
    ctx.indexer_k_cache_write(k, slots, cache)
    flat = cache.reshape(nb, bs * 132)
    for t, s in enumerate(slots):
        if s < 0:
            continue
        blk, off = divmod(int(s), bs)
        amax = float(np.max(np.abs(k[t].astype(np.float64))))
        scale = struct.unpack("<f", flat[blk, bs * 128 + off * 4:
                                         bs * 128 + off * 4 + 4].tobytes())[0]
        assert scale == pytest.approx(amax / 240.0, rel=1e-6)
        got = flat[blk, off * 128:(off + 1) * 128]
        want = [encode(float(v) / (amax / 240.0)) for v in k[t]]
        close = [g == w or abs(FNUZ[g] - FNUZ[w]) <= 2 ** (math.floor(
            math.log2(max(abs(FNUZ[w]), 2 ** -7))) - 3) for g, w in zip(got, want)]
        assert all(close), (t, list(got), want)
    untouched = [s for s in range(nb * bs) if s not in set(slots.tolist())]
    for s in untouched:
        blk, off = divmod(s, bs)
        assert not flat[blk, off * 128:(off + 1) * 128].any()


def test_bad_arguments_raise_with_the_argument_named(ctx):
    k = np.ones((2, 128), dtype=np.float32)
    cache = np.zeros((1, 4, 1, 132), dtype=np.uint8)
    with pytest.raises(tessel.TesselError, match="slot_mapping: dtype must be int64"):
        ctx.indexer_k_cache_write(k, np.zeros(2, dtype=np.int32), cache)
    with pytest.raises(tessel.TesselError, match="slot_mapping\\[1\\] = 4 is past the cache"):
        ctx.indexer_k_cache_write(k, np.array([0, 4], dtype=np.int64), cache)
    with pytest.raises(tessel.TesselError, match="kv_cache: must be contiguous"):
        big = np.zeros((1, 8, 1, 132), dtype=np.uint8)
        ctx.indexer_k_cache_write(k, np.zeros(2, dtype=np.int64), big[:, ::2])
    with pytest.raises(tessel.TesselError, match="k: not a DLPack tensor"):
        ctx.indexer_k_cache_write([[1.0]], np.zeros(2, dtype=np.int64), cache)
    with pytest.raises(tessel.TesselError, match="unsupported DLPack dtype"):
        ctx.indexer_k_cache_write(k.astype(np.complex64),
                                  np.zeros(2, dtype=np.int64), cache)


def test_bad_device_and_knob():
    with pytest.raises(tessel.TesselError, match="unknown device 'tpu'"):
        tessel.Context("tpu")
    with pytest.raises(tessel.TesselError, match="unknown knob"):
        tessel.config_set("TESSEL_NOPE", "1")


def test_empty_batch_is_a_no_op(ctx):
    # numpy reports stride 0 for every dimension of an empty array.
    k = np.zeros((0, 128), dtype=np.float32)
    slots = np.zeros((0,), dtype=np.int64)
    cache = np.full((1, 4, 1, 132), 7, dtype=np.uint8)
    ctx.indexer_k_cache_write(k, slots, cache)
    assert (cache == 7).all()
    ctx.indexer_k_cache_write(np.zeros((0, 128), dtype=np.float32, order="F"),
                              slots, cache)
    assert (cache == 7).all()


def test_one_token_ignores_the_unused_strides(ctx):
    # Shape (1, 128) from a column slice: the row stride is that of the
    # parent array and must not matter.
    rng = np.random.default_rng(3)
    k = rng.normal(size=(1, 256)).astype(np.float32)[:, :128]
    cache = np.zeros((1, 4, 1, 132), dtype=np.uint8)
    ctx.indexer_k_cache_write(k, np.array([2], dtype=np.int64), cache)
    assert cache.reshape(-1)[2 * 128:3 * 128].any()


def test_read_only_inputs_are_accepted(ctx):
    k = np.ones((2, 128), dtype=np.float32)
    k.flags.writeable = False
    slots = np.array([0, 1], dtype=np.int64)
    slots.flags.writeable = False
    cache = np.zeros((1, 4, 1, 132), dtype=np.uint8)
    ctx.indexer_k_cache_write(k, slots, cache)
    flat = cache.reshape(-1)
    assert flat[:2 * 128].any()
    scale = struct.unpack("<f", flat[4 * 128:4 * 128 + 4].tobytes())[0]
    assert scale == pytest.approx(1.0 / 240.0, rel=1e-6)


def test_read_only_output_is_refused(ctx):
    k = np.ones((2, 128), dtype=np.float32)
    cache = np.zeros((1, 4, 1, 132), dtype=np.uint8)
    cache.flags.writeable = False
    with pytest.raises(tessel.TesselError,
                       match="kv_cache: the array is read-only, but the op "
                             "writes it"):
        ctx.indexer_k_cache_write(k, np.array([0, 1], dtype=np.int64), cache)
    assert not cache.any()


def test_context_argument_types_and_ranges():
    with pytest.raises(TypeError, match="device must be a str such as 'emu' "
                                        "or 'cuda', or None, not int"):
        tessel.Context(123)
    with pytest.raises(TypeError, match="ordinal must be an int, not str"):
        tessel.Context("emu", "0")
    with pytest.raises(OverflowError, match="ordinal 1099511627776 does not "
                                            "fit the C API's int"):
        tessel.Context("emu", 2 ** 40)
    with pytest.raises(ValueError, match="ordinal -1 is negative"):
        tessel.Context("emu", -1)
    with pytest.raises(tessel.TesselError,
                       match=r"device ordinal 1000000 is out of range for "
                             r"emu \(valid: 0\)"):
        tessel.Context("emu", 1000000)
    c = tessel.Context("emu", np.int64(0))  # any integer type
    assert c.device_kind == "emu"
    c.close()
