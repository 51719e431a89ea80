"""torch.ops.tessel.* through the compiled binding (tessel/csrc/torch_ops.cpp)
on the emu device with cpu tensors: the bytes of the generic DLPack path,
each error naming its argument, the Meta kernel, opcheck and
torch.compile(fullgraph=True). Skipped without torch.

Run by ctest (label python) with TESSEL_TEST_RUNTIME_LIBRARY,
TESSEL_TEST_FAKE_EMU and TESSEL_TEST_BUNDLE, as test_tessel.py is. The first
run builds the extension (about 20 s; torch caches it).
"""
import ctypes
import os
import subprocess
import sys

import pytest

# Under the sanitized runtime build the interpreter preloads libasan while
# torch and the extension (built by torch, uninstrumented) are not: that
# process is not a configuration the binding supports, so the sanitizer
# script sets this and the binding is tested by the ordinary build.
if os.environ.get("TESSEL_TEST_NO_TORCH"):
    pytest.skip("torch tests are off in the sanitized build",
                allow_module_level=True)
torch = pytest.importorskip("torch")
import tessel  # noqa: E402
from tessel import _torch_ops  # noqa: E402

tessel.load_library(os.environ["TESSEL_TEST_RUNTIME_LIBRARY"])
tessel.config_set("TESSEL_EMU_LIBRARY", os.environ["TESSEL_TEST_FAKE_EMU"])

@pytest.fixture(scope="module")
def ctx():
    if _torch_ops.context() is None:
        assert tessel.register_torch_ops("emu:gfx942", binding="compiled")
        _torch_ops.context().load_bundle(os.environ["TESSEL_TEST_BUNDLE"])
        # The writer's preshuffle and ue8m0 variants (f32 k).
        _torch_ops.context().load_bundle(
            os.environ["TESSEL_TEST_OPTIONS_BUNDLE"])
    c = _torch_ops.context()
    if c.device_kind != "emu" or _torch_ops.binding() != "compiled":
        pytest.skip("torch.ops.tessel is registered on %s (%s) in this "
                    "process" % (c.device_kind, _torch_ops.binding()))
    return c


@pytest.fixture(scope="module")
def op(ctx):
    return torch.ops.tessel.indexer_k_cache_write


def write_case(seed, T=9, nb=3, bs=4, width=136, dtype=torch.float32):
    """k with a row stride of `width`, slots with skips, a poisoned cache."""
    g = torch.Generator().manual_seed(seed)
    k = (torch.randn(T, width, generator=g) * 3).to(dtype)[:, :128]
    slots = torch.randperm(nb * bs, generator=g)[:T]
    slots[::4] = -1
    poison = torch.randint(0, 256, (nb, bs, 1, 132), generator=g,
                           dtype=torch.uint8)
    return k, slots, poison


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_writes_the_bytes_of_the_dlpack_path(ctx, op, dtype):
    k, slots, poison = write_case(1, dtype=dtype)
    got = poison.clone()
    op(k, slots, got)
    want = poison.clone()
    ctx.indexer_k_cache_write(k, slots, want)  # the generic path
    assert torch.equal(got, want)
    # The slots skipped keep their poison, the written ones do not.
    assert not torch.equal(got, poison)
    flat_got, flat_poison = got.view(3, 4 * 132), poison.view(3, 4 * 132)
    written = set(slots.tolist())
    for s in range(12):
        if s not in written:
            b, o = divmod(s, 4)
            assert torch.equal(flat_got[b, o * 128:(o + 1) * 128],
                               flat_poison[b, o * 128:(o + 1) * 128])


def test_a_second_registration_keeps_the_first(ctx, op):
    assert tessel.register_torch_ops()  # no device named: the same ops
    assert tessel.register_torch_ops("emu:gfx942", binding="compiled")
    with pytest.raises(RuntimeError, match="already registered on "
                       "'emu:gfx942' ordinal 0"):
        tessel.register_torch_ops("cuda")
    with pytest.raises(RuntimeError, match="already registered with the "
                       "compiled binding"):
        tessel.register_torch_ops(binding="ctypes")
    with pytest.raises(ValueError, match="binding must be 'auto', 'compiled' "
                       "or 'ctypes', not 'fast'"):
        tessel.register_torch_ops(binding="fast")
    assert _torch_ops.context() is ctx


def test_the_overload_and_the_packet_agree(ctx, op):
    k, slots, poison = write_case(2)
    a, b = poison.clone(), poison.clone()
    op(k, slots, a)
    op.default(k, slots, b)
    assert torch.equal(a, b)


def test_runtime_errors_name_the_op_and_the_argument(ctx, op):
    k, slots, cache = write_case(3)
    with pytest.raises(RuntimeError, match=r"^tessel::indexer_k_cache_write: "
                       r"slot_mapping: dtype must be int64, got int32"):
        op(k, slots.int(), cache)
    with pytest.raises(RuntimeError, match=r"tessel::indexer_k_cache_write: "
                       r"slot_mapping\[\d+\] = 99 is past the cache"):
        op(k, torch.full_like(slots, 99), cache)
    with pytest.raises(RuntimeError, match="kv_cache: must be contiguous"):
        op(k[:2], slots[:2].clamp_min(0), torch.zeros(
            3, 8, 1, 132, dtype=torch.uint8)[:, ::2])


def test_tensors_tessel_cannot_describe_are_refused(ctx, op):
    k, slots, cache = write_case(4)
    with pytest.raises(RuntimeError, match="tessel::indexer_k_cache_write: "
                       "k: dtype Double is not a Tessel dtype"):
        op(k.double(), slots, cache)
    with pytest.raises(RuntimeError, match="slot_mapping: dtype Bool is not"):
        op(k, slots > 0, cache)
    deep = torch.zeros((1,) * 9, dtype=torch.uint8)
    with pytest.raises(RuntimeError, match="kv_cache: rank 9 > 8"):
        op(k, slots, deep)


def test_tensors_on_another_device_are_refused(ctx, op):
    """Binds the ops to the same context as if it were a cuda one: cpu tensors
    must then be refused before the runtime sees them."""
    path = _torch_ops.build_extension()

    class AsCuda:
        _h, device_kind, ordinal = ctx._h, "cuda", 0

    k, slots, cache = write_case(5)
    _torch_ops._bind(path, AsCuda)
    try:
        with pytest.raises(RuntimeError, match="k is on cpu, but the Tessel "
                           "context for torch.ops runs on cuda:0"):
            op(k, slots, cache)
    finally:
        _torch_ops._bind(path, ctx)
    op(k, slots, cache)  # bound back


def test_bind_refuses_bad_arguments(ctx, op):
    ext = ctypes.CDLL(_torch_ops.build_extension())
    bind = ext.tessel_torch_bind
    bind.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                     ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
    err = ctypes.create_string_buffer(256)
    lib = tessel.load_library()._handle
    assert bind(None, ctx._h, 0, 0, err, 256) == 1
    assert b"null library handle" in err.value
    assert bind(lib, ctx._h, 7, 0, err, 256) == 1
    assert b"device type 7 is neither" in err.value
    assert bind(lib, ctx._h, 1, -1, err, 256) == 1
    assert b"ordinal -1 is out of range" in err.value
    libc = ctypes.CDLL(None)._handle  # no tessel_last_error there
    assert bind(libc, ctx._h, 0, 0, err, 256) == 1
    assert b"no tessel_last_error" in err.value


def test_autograd_kernel_bumps_the_version_of_what_it_writes(ctx, op):
    k, slots, cache = write_case(9)
    before_k, before_cache = k._version, cache._version
    op(k, slots, cache)
    assert cache._version == before_cache + 1
    assert k._version == before_k


def test_inputs_that_require_grad_are_refused(ctx, op):
    k, slots, cache = write_case(10)
    k = k.detach().requires_grad_()
    with pytest.raises(RuntimeError, match="tessel::indexer_k_cache_write: k "
                       "requires grad, but Tessel ops are not differentiable"):
        op(k, slots, cache)
    with torch.no_grad():
        op(k, slots, cache)


def test_inference_mode_skips_autograd_and_writes_the_same(ctx, op):
    k, slots, poison = write_case(11)
    a = poison.clone()
    op(k, slots, a)
    with torch.inference_mode():
        b = poison.clone()
        op(k, slots, b)
    assert torch.equal(a, b)


def test_meta_kernel_runs_nothing(ctx, op):
    k, slots, cache = write_case(6)
    op(k.to("meta"), slots.to("meta"), cache.to("meta"))  # no error, no data


def test_opcheck(ctx, op):
    k, slots, poison = write_case(7)
    torch.library.opcheck(op.default, (k, slots, poison.clone()))


def test_compiled_step_is_bit_exact_against_eager(ctx, op):
    def step(k, slots, cache):
        k2 = k * 0.5 + 1.0
        op(k2, slots, cache)
        return cache.view(-1)[:128].float().sum()

    k, slots, poison = write_case(8)
    eager_cache = poison.clone()
    eager = step(k, slots, eager_cache)
    compiled = torch.compile(step, fullgraph=True, backend="aot_eager")
    comp_cache = poison.clone()
    got = compiled(k, slots, comp_cache)
    assert torch.equal(comp_cache, eager_cache)
    assert torch.equal(got, eager)


def test_without_a_compiler_auto_falls_back_to_ctypes(tmp_path):
    """A fresh process with no usable compiler and an empty extension cache:
    "auto" warns and registers the ctypes ops, which still work."""
    script = r'''
import os, warnings, torch, tessel
from tessel import _torch_ops
tessel.load_library(os.environ["TESSEL_TEST_RUNTIME_LIBRARY"])
tessel.config_set("TESSEL_EMU_LIBRARY", os.environ["TESSEL_TEST_FAKE_EMU"])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    assert tessel.register_torch_ops("emu:gfx942")
assert _torch_ops.binding() == "ctypes", _torch_ops.binding()
assert any("compiled torch.ops binding is not available" in str(x.message)
           for x in w), [str(x.message) for x in w]
_torch_ops.context().load_bundle(os.environ["TESSEL_TEST_BUNDLE"])
cache = torch.zeros(1, 4, 1, 132, dtype=torch.uint8)
torch.ops.tessel.indexer_k_cache_write(torch.ones(1, 128),
                                       torch.zeros(1, dtype=torch.int64), cache)
assert cache.any()
print("ok")
'''
    env = dict(os.environ, CXX=str(tmp_path / "no-such-compiler"),
               TORCH_EXTENSIONS_DIR=str(tmp_path / "ext"))
    out = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize("preshuffle,scale_fmt", [
    (True, None), (False, "ue8m0"), (True, "ue8m0")])
def test_writer_options_write_the_bytes_of_the_dlpack_path(
        ctx, op, preshuffle, scale_fmt):
    k, slots, poison = write_case(12, bs=16)
    got, want = poison.clone(), poison.clone()
    op(k, slots, got, preshuffle=preshuffle, scale_fmt=scale_fmt)
    ctx.indexer_k_cache_write(k, slots, want, preshuffle=preshuffle,
                              scale_fmt=scale_fmt)
    assert torch.equal(got, want)
    plain = poison.clone()
    op(k, slots, plain)
    assert not torch.equal(got, plain)  # the options changed the bytes


def test_writer_options_are_checked(ctx, op):
    k, slots, cache = write_case(13, bs=16)
    with pytest.raises(RuntimeError, match="tessel::indexer_k_cache_write: "
                       "scale_fmt must be None or 'ue8m0', got 'e8m0'"):
        op(k, slots, cache, scale_fmt="e8m0")
    # The options bundle has no bf16 variants: the refusal names the options.
    with pytest.raises(RuntimeError, match="k_bf16=1 preshuffle=1 "
                       "scale_ue8m0=1"):
        op(k.bfloat16(), slots, cache, preshuffle=True, scale_fmt="ue8m0")


def logits_case(B=2, next_n=2, H=32, bs=16, max_model_len=64):
    q = torch.zeros(B, next_n, H, 128, dtype=torch.uint8)
    kv = torch.zeros(8, bs, 1, 132, dtype=torch.uint8)
    weights = torch.ones(B * next_n, H)
    lens = torch.tensor([5, 20][:B], dtype=torch.int32)
    tables = torch.zeros(B, 4, dtype=torch.int32)
    return [q, kv, weights, lens, tables, max_model_len]


def test_logits_checks_name_the_argument(ctx):
    logits = torch.ops.tessel.paged_mqa_logits
    a = logits_case()
    a[2] = a[2].half()
    with pytest.raises(RuntimeError, match="tessel::paged_mqa_logits: "
                       "weights: dtype must be f32, got f16"):
        logits(*a)
    a = logits_case(max_model_len=10)
    with pytest.raises(RuntimeError, match=r"context_lens\[1\] = 20 is "
                       "greater than max_model_len = 10"):
        logits(*a)
    a = logits_case()
    a[0] = a[0][0]
    with pytest.raises(RuntimeError, match="tessel::paged_mqa_logits: q: "
                       "rank 3, want 4"):
        logits(*a)
    with pytest.raises(RuntimeError, match="max_model_len = -1 is negative"):
        logits(*logits_case(max_model_len=-1))
    # Past the checks, the test bundle has no logits kernel: the refusal
    # names the options given, through both overloads.
    with pytest.raises(RuntimeError, match="heads=32 preshuffle=1"):
        logits(*logits_case(), preshuffle=True)
    with pytest.raises(RuntimeError, match="heads=32 preshuffle=0"):
        logits(*logits_case(), out=torch.empty(4, 64))


def test_metadata_checks_its_scalars(ctx):
    meta = torch.ops.tessel.paged_mqa_logits_metadata
    lens = torch.tensor([5, 20], dtype=torch.int32)
    with pytest.raises(RuntimeError, match="split_tokens = 0 is not in"):
        meta(lens, 0, 8)
    with pytest.raises(RuntimeError, match="num_cus = -1 is not in"):
        meta(lens, 64, -1)
    # num_cus 0 is the device's CU count (304 on emu:gfx942).
    assert meta(lens.to("meta"), 64).shape == (ctx.cu_count + 1, 2)


def test_fake_kernels_give_the_result_shapes(ctx):
    """torch.export traces with fake tensors only: the Meta kernels alone
    give the shapes, symbolic in the batch."""
    class Step(torch.nn.Module):
        def forward(self, q, kv, weights, lens, tables, out):
            logits = torch.ops.tessel.paged_mqa_logits(
                q, kv, weights, lens, tables, 64, preshuffle=True)
            torch.ops.tessel.paged_mqa_logits(q, kv, weights, lens, tables,
                                              64, out=out)
            schedule = torch.ops.tessel.paged_mqa_logits_metadata(lens, 32, 8)
            return logits, schedule

    a = logits_case(B=2)
    out = torch.empty(4, 64)
    batch = torch.export.Dim("batch", min=2, max=64)
    ep = torch.export.export(
        Step(), (*a[:5], out),
        dynamic_shapes=({0: batch}, None, {0: batch * 2}, {0: batch},
                        {0: batch}, {0: batch * 2}))
    logits_meta, schedule_meta = (n.meta["val"] for n in ep.graph.output_node(
    ).args[0])
    assert logits_meta.dtype == torch.float32
    rows = logits_meta.shape[0]
    assert isinstance(rows, torch.SymInt), rows  # B * next_n, B symbolic
    assert rows.node.expr == 2 * next(iter(rows.node.expr.free_symbols))
    assert logits_meta.shape[1] == 64
    assert schedule_meta.dtype == torch.int32
    assert tuple(schedule_meta.shape) == (9, 2)
    # Eagerly on meta tensors: the same shapes, and nothing runs.
    m = [t.to("meta") if isinstance(t, torch.Tensor) else t for t in a]
    assert torch.ops.tessel.paged_mqa_logits(*m).shape == (4, 64)
    assert torch.ops.tessel.paged_mqa_logits(
        *m, out=torch.empty(4, 64, device="meta")) is None


def test_topk_meta_kernel_gives_the_indices_shape(ctx):
    """[R, k] int32 from logits [R, L] alone, through both overloads, with
    nothing run; a logits tensor of another rank is refused by name."""
    topk = torch.ops.tessel.topk_per_row
    logits = torch.empty(6, 3000, device="meta")
    lens = torch.empty(2, dtype=torch.int32, device="meta")
    got = topk(logits, lens, 3, 1024, stable=True)
    assert got.shape == (6, 1024) and got.dtype == torch.int32
    assert got.device.type == "meta"
    assert topk(logits, lens, 3, 512,
                out=torch.empty(6, 512, dtype=torch.int32,
                                device="meta")) is None
    with pytest.raises(RuntimeError, match="tessel::topk_per_row: logits: "
                       "rank 1, want 2"):
        topk(logits[0], lens, 3)


def test_topk_runtime_checks_reach_the_caller(ctx):
    topk = torch.ops.tessel.topk_per_row
    logits = torch.zeros(2, 600)
    lens = torch.tensor([600, 600], dtype=torch.int32)
    with pytest.raises(RuntimeError, match="tessel::topk_per_row: k must be "
                       "one of 512, 1024, 2048, got 100"):
        topk(logits, lens, 1, 100)
    with pytest.raises(RuntimeError, match=r"context_lens\[1\] = 601 is "
                       "greater than"):
        topk(logits, torch.tensor([600, 601], dtype=torch.int32), 1, 512)
    # The fake bundle has no topk kernels: sorted=True asks for a sorted
    # variant.
    with pytest.raises(RuntimeError, match="no code object .* with k=512 "
                       "sorted=1"):
        topk(logits, lens, 1, 512, sorted=True)
