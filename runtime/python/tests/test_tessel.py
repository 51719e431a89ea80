"""Tests of the Python binding on the emu device with the test plugins.

Run by ctest (label python), which sets TESSEL_TEST_RUNTIME_LIBRARY,
TESSEL_TEST_FAKE_EMU, TESSEL_TEST_BUNDLE (a gfx942 bundle for the fake
emulator, f32 and bf16 variants) and TESSEL_TEST_OPTIONS_BUNDLE (f32
variants with the preshuffle and ue8m0 options).

The writer's reference (DESIGN.md 3.4): scale = max(amax, 1e-4) / 224 on
gfx942 (e4m3fnuz), with ue8m0 the next power of two up; values are the
nearest e4m3fnuz code of k / scale, saturating at 240.
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


def ref_scale(amax, ue8m0=False):
    """max(amax, 1e-4) / 224 rounded to f32; ue8m0: the next power of two."""
    floor = struct.unpack("<f", struct.pack("<f", 1e-4))[0]
    s = struct.unpack("<f", struct.pack("<f", max(amax, floor) / 224.0))[0]
    if ue8m0:
        p = 2.0 ** -149
        while p < s:
            p *= 2
        s = p
    return s


def value_offset(preshuffle, o, d):
    """Byte of (token-in-block o, d) in a block's value region."""
    if not preshuffle:
        return o * 128 + d
    return ((o // 16) * 8 + d // 16) * 256 + (o % 16) * 16 + d % 16


def close_codes(got, want):
    """Equal, or one fp8 step apart (f32 kernel vs float64 reference)."""
    return got == want or abs(FNUZ[got] - FNUZ[want]) <= 2 ** (math.floor(
        math.log2(max(abs(FNUZ[want]), 2 ** -7))) - 3)


def check_cache(k, slots, cache, preshuffle=False, ue8m0=False):
    nb, bs = cache.shape[:2]
    flat = cache.reshape(nb, bs * 132)
    for t, s in enumerate(slots):
        if s < 0:
            continue
        blk, off = divmod(int(s), bs)
        amax = float(np.max(np.abs(k[t].astype(np.float64))))
        scale = struct.unpack("<f", flat[blk, bs * 128 + off * 4:
                                         bs * 128 + off * 4 + 4].tobytes())[0]
        want_scale = ref_scale(amax, ue8m0)
        assert scale == pytest.approx(want_scale, rel=1e-6)
        for d in range(128):
            got = flat[blk, value_offset(preshuffle, off, d)]
            want = encode(float(k[t, d]) / want_scale)
            assert close_codes(got, want), (t, d, got, want)
    written = set(int(s) for s in slots if s >= 0)
    for s in range(nb * bs):
        if s in written:
            continue
        blk, off = divmod(s, bs)
        assert not any(flat[blk, value_offset(preshuffle, off, d)]
                       for d in range(128))


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
    check_cache(k, slots, cache)
    flat = cache.reshape(nb, bs * 132)
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
    assert scale == pytest.approx(1.0 / 224.0, rel=1e-6)


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


@pytest.mark.parametrize("preshuffle,scale_fmt", [(True, None), (False, "ue8m0"),
                                                  (True, "ue8m0")])
def test_writer_options(ctx, preshuffle, scale_fmt):
    ctx.load_bundle(os.environ["TESSEL_TEST_OPTIONS_BUNDLE"])
    rng = np.random.default_rng(11)
    T, nb, bs = 9, 2, 16
    k = rng.normal(0, 2, size=(T, 128)).astype(np.float32)
    k[3] = 1e-6  # below the amax floor
    slots = np.array([5, -1, 0, 17, 31, 16, 2, 30, 9], dtype=np.int64)
    cache = np.zeros((nb, bs, 1, 132), dtype=np.uint8)
    ctx.indexer_k_cache_write(k, slots, cache, preshuffle=preshuffle,
                              scale_fmt=scale_fmt)
    check_cache(k, slots, cache, preshuffle, scale_fmt == "ue8m0")


def test_writer_option_errors(ctx):
    k = np.ones((2, 128), dtype=np.float32)
    slots = np.zeros(2, dtype=np.int64)
    with pytest.raises(tessel.TesselError,
                       match="scale_fmt must be one of None, 'ue8m0', got "
                             "'e8m0'"):
        ctx.indexer_k_cache_write(k, slots, np.zeros((1, 16, 1, 132), np.uint8),
                                  scale_fmt="e8m0")
    with pytest.raises(tessel.TesselError,
                       match="the preshuffled layout needs block_size % 16 "
                             "== 0, got block_size 8"):
        ctx.indexer_k_cache_write(k, slots, np.zeros((1, 8, 1, 132), np.uint8),
                                  preshuffle=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        ctx.indexer_k_cache_write(k, slots, np.zeros((1, 16, 1, 132), np.uint8),
                                  bogus=1)


def logits_args(B=2, next_n=2, H=32, bs=16, nb=8, ctxlen=40, mml=64):
    q = np.zeros((B, next_n, H, 128), dtype=np.uint8)
    kv = np.zeros((nb, bs, 1, 132), dtype=np.uint8)
    w = np.zeros((B * next_n, H), dtype=np.float32)
    lens = np.full((B,), ctxlen, dtype=np.int32)
    tables = np.arange(B * 4, dtype=np.int32).reshape(B, 4) % nb
    return [q, kv, w, lens, tables, mml]


def test_paged_mqa_logits_is_a_method_and_a_module_function(ctx):
    assert "paged_mqa_logits" in tessel.ops()
    assert callable(tessel.paged_mqa_logits)
    assert callable(tessel.paged_mqa_logits_metadata)
    # A valid call reaches dispatch: the test bundle has no logits kernel.
    with pytest.raises(tessel.TesselError, match="paged_mqa_logits: no code "
                                                 "object for target gfx942"):
        ctx.paged_mqa_logits(*logits_args())
    with pytest.raises(tessel.TesselError, match="no code object"):
        ctx.paged_mqa_logits_metadata(np.array([5, 0, 9], np.int32), 64)


@pytest.mark.parametrize("change,message", [
    (lambda a: a.__setitem__(0, a[0].astype(np.float32)),
     "q: dtype must be uint8, fp8_e4m3fn or fp8_e4m3fnuz, got f32"),
    (lambda a: a.__setitem__(0, np.zeros((2, 2, 48, 128), np.uint8)),
     r"q: shape\[2\] \(heads\) must be one of 16, 32, 64, 128, got 48"),
    (lambda a: a.__setitem__(0, np.zeros((2, 9, 32, 128), np.uint8)),
     r"q: shape\[1\] \(next_n\) must be in \[1, 8\], got 9"),
    (lambda a: a.__setitem__(0, np.zeros((2, 2, 32, 64), np.uint8)),
     r"q: shape\[3\] \(head_dim\) must be 128, got 64"),
    (lambda a: a.__setitem__(1, np.zeros((8, 24, 1, 132), np.uint8)),
     r"kv_cache: shape\[1\] \(block_size\) must be one of 1, 16, 32, 64, "
     r"128, 256, got 24"),
    (lambda a: a.__setitem__(2, np.zeros((3, 32), np.float32)),
     r"weights: shape\[0\] = 3 must be B\*next_n = 4"),
    (lambda a: a.__setitem__(2, np.zeros((4, 16), np.float32)),
     r"weights: shape\[1\] = 16 does not match heads = 32 \(q shape\[2\]\)"),
    (lambda a: a.__setitem__(3, np.array([40, 65], np.int32)),
     r"context_lens\[1\] = 65 is greater than max_model_len = 64"),
    (lambda a: a.__setitem__(3, np.array([-1, 3], np.int32)),
     r"context_lens\[0\] = -1 is negative"),
    (lambda a: a.__setitem__(3, np.zeros((2, 3), np.int32)),
     r"context_lens: shape\[1\] = 3 does not match next_n = 2"),
    (lambda a: a.__setitem__(3, np.zeros((2,), np.int64)),
     "context_lens: dtype must be int32, got int64"),
    (lambda a: a[4].__setitem__((1, 2), 8),
     r"block_tables\[1\]\[2\] = 8 is not a block of kv_cache "
     r"\(num_blocks = 8\)"),
    (lambda a: a.__setitem__(4, np.zeros((2, 2), np.int32)),
     "block_tables: batch 0 has 40 tokens, which need 3 blocks, but "
     "block_tables has 2 per sequence"),
    (lambda a: a.__setitem__(4, np.zeros((2, 8), np.int32)[:, ::2]),
     "block_tables: inner stride must be 1, got 2"),
    (lambda a: a.__setitem__(5, -1),
     r"max_model_len must be in \[0, 2147483647\], got -1"),
])
def test_paged_mqa_logits_validation(ctx, change, message):
    args = logits_args()
    change(args)
    with pytest.raises(tessel.TesselError, match=message):
        ctx.paged_mqa_logits(*args)


def test_paged_mqa_logits_preshuffle_and_out_checks(ctx):
    args = logits_args(bs=1, nb=64, ctxlen=3, mml=8)
    args[4] = np.zeros((2, 4), np.int32)
    with pytest.raises(tessel.TesselError,
                       match="kv_cache: a preshuffled cache needs block_size "
                             "% 16 == 0, got block_size 1"):
        ctx.paged_mqa_logits(*args, preshuffle=True)
    with pytest.raises(tessel.TesselError,
                       match=r"out: shape\[1\] = 7 does not match "
                             r"max_model_len = 8"):
        ctx.paged_mqa_logits(*args, out=np.zeros((4, 7), np.float32))
    with pytest.raises(tessel.TesselError,
                       match="out: the array is read-only"):
        ro = np.zeros((4, 8), np.float32)
        ro.flags.writeable = False
        ctx.paged_mqa_logits(*args, out=ro)
    # A padded output row (stride >= max_model_len) passes validation.
    padded = np.zeros((4, 16), np.float32)[:, :8]
    with pytest.raises(tessel.TesselError, match="no code object"):
        ctx.paged_mqa_logits(*args, out=padded)


def test_metadata_validation(ctx):
    with pytest.raises(tessel.TesselError,
                       match=r"context_lens\[1\] = -4 is negative"):
        ctx.paged_mqa_logits_metadata(np.array([5, -4], np.int32), 64)
    with pytest.raises(tessel.TesselError,
                       match=r"split_tokens must be in \[1, 2147483647\], "
                             r"got 0"):
        ctx.paged_mqa_logits_metadata(np.array([5, 4], np.int32), 0)
    with pytest.raises(tessel.TesselError,
                       match=r"schedule: shape\[0\] = 4 must be num_cus\+1 "
                             r"= 305"):
        ctx.paged_mqa_logits_metadata(np.array([5, 4], np.int32), 64,
                                      out=np.zeros((4, 2), np.int32))
