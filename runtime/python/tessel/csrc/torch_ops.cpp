//===- torch_ops.cpp - torch.ops.tessel.* over the Tessel C API -----------===//
//
// Registers the Tessel ops with the PyTorch dispatcher (TORCH_LIBRARY), so
// that a torch.ops.tessel.* call goes from the dispatcher straight to the C
// API, with no Python frame and no DLPack export per call: one boxed kernel
// reads each at::Tensor's data pointer, sizes and strides into a
// tessel_tensor and passes the stream that is current for the tensors'
// device. The kernel serves CPU tensors (the emu device) and CUDA tensors
// (the cuda device, and hip under a ROCm build of torch, which calls its
// devices "cuda"); a Meta kernel gives torch.compile the output shapes.
//
// No CUDA header is needed: the stream comes from c10's device-generic
// Stream::native_handle(). The runtime is the library the tessel package
// loaded: tessel_torch_bind() gets its dlopen handle and a context, and
// resolves the entry points there, so there is one copy of the runtime.
//
// Adding an op is one entry of kOps (schema, C symbol, call, result). The
// writer, which engines call per decode step, has typed (unboxed) kernels
// instead: they read the three tensors straight into a stack array of
// tessel_tensor and call the C entry point resolved at bind time, with no
// walk over the argument stack (registerTyped).
//
//===----------------------------------------------------------------------===//

#include "tessel/tessel.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <ATen/ops/empty.h>
#include <c10/core/GradMode.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <utility>

namespace {

constexpr int kMaxTensors = 8;
constexpr int kMaxScalars = 16;
constexpr int kMaxStrings = 4;

// One call's arguments in schema order, by kind: tensors, ints and bools,
// strings. An optional tensor or string that is None is a null pointer. An
// op that returns a tensor gets it as the tensor after its schema's tensors.
struct CallArgs {
  const tessel_tensor *t[kMaxTensors + 1];
  int64_t i[kMaxScalars];
  const char *s[kMaxStrings];
  tessel_stream stream;
};

// Calls the C entry point `fn` (resolved from the op's symbol).
using Invoke = tessel_status (*)(void *fn, tessel_context *ctx,
                                 const CallArgs &a);
struct Runtime;
// Allocates the returned tensor of an op that returns one, from the call's
// arguments (sym sizes, so it also serves fake tensors under torch.compile)
// and the bound runtime (null in a Meta kernel before any binding).
using MakeResult = at::Tensor (*)(c10::ArrayRef<c10::IValue> args,
                                  const at::TensorOptions &where,
                                  const Runtime *rt);

struct OpDef {
  const char *schema; // "name(arguments) -> returns", in namespace tessel
  const char *symbol; // the C entry point in libtessel_runtime.so
  Invoke invoke;
  MakeResult result; // nullptr: the op returns nothing
};

template <typename Fn> Fn as(void *fn) { return reinterpret_cast<Fn>(fn); }

uint32_t logitsFlags(int64_t preshuffle, int64_t writeTail) {
  return (preshuffle ? TESSEL_LOGITS_PRESHUFFLED : 0u) |
         (writeTail ? 0u : TESSEL_LOGITS_NO_TAIL);
}

tessel_status pagedMqaLogits(void *fn, tessel_context *ctx, const CallArgs &a) {
  return as<decltype(&tessel_paged_mqa_logits)>(fn)(
      ctx, a.t[0], a.t[1], a.t[2], a.t[3], a.t[4], a.i[0],
      logitsFlags(a.i[1], a.i[2]), a.t[5], a.stream);
}

// The logits [B*next_n, max_model_len] f32 of q [B, next_n, H, D].
at::Tensor logitsResult(c10::ArrayRef<c10::IValue> args,
                        const at::TensorOptions &where, const Runtime *) {
  const at::Tensor &q = args[0].toTensor();
  const int64_t maxModelLen = args[5].toInt();
  TORCH_CHECK(q.dim() == 4, "tessel::paged_mqa_logits: q: rank ", q.dim(),
              ", want 4 ([B, next_n, H, 128])");
  TORCH_CHECK(maxModelLen >= 0,
              "tessel::paged_mqa_logits: max_model_len = ", maxModelLen,
              " is negative");
  return at::empty_symint({q.sym_size(0) * q.sym_size(1), maxModelLen},
                          where.dtype(at::kFloat));
}

// The schedule [num_cus + 1, 2] int32; num_cus 0 is the device's CU count.
at::Tensor scheduleResult(c10::ArrayRef<c10::IValue> args,
                          const at::TensorOptions &where, const Runtime *rt);

// The indices [R, k] int32 of logits [R, L].
at::Tensor topkResult(c10::ArrayRef<c10::IValue> args,
                      const at::TensorOptions &where, const Runtime *) {
  const at::Tensor &logits = args[0].toTensor();
  const int64_t k = args[3].toInt();
  TORCH_CHECK(logits.dim() == 2, "tessel::topk_per_row: logits: rank ",
              logits.dim(), ", want 2 ([R, L])");
  TORCH_CHECK(k >= 1 && k <= INT32_MAX, "tessel::topk_per_row: k = ", k,
              " is not in [1, 2^31 - 1]");
  return at::empty_symint({logits.sym_size(0), k}, where.dtype(at::kInt));
}

tessel_status topkPerRow(void *fn, tessel_context *ctx, const CallArgs &a) {
  TORCH_CHECK(a.i[0] >= INT32_MIN && a.i[0] <= INT32_MAX,
              "tessel::topk_per_row: next_n = ", a.i[0], " does not fit int32");
  TORCH_CHECK(a.i[1] >= INT32_MIN && a.i[1] <= INT32_MAX,
              "tessel::topk_per_row: k = ", a.i[1], " does not fit int32");
  const uint32_t flags =
      (a.i[2] ? TESSEL_TOPK_STABLE : 0u) | (a.i[3] ? TESSEL_TOPK_SORTED : 0u);
  return as<decltype(&tessel_topk_per_row)>(fn)(
      ctx, a.t[0], a.t[1], static_cast<int32_t>(a.i[0]),
      static_cast<int32_t>(a.i[1]), flags, a.t[2], a.stream);
}

#define TESSEL_TOPK_ARGS                                                       \
  "Tensor logits, Tensor context_lens, int next_n, int k=2048, *, "            \
  "bool stable=False, bool sorted=False"

#define TESSEL_LOGITS_ARGS                                                     \
  "Tensor q, Tensor kv_cache, Tensor weights, Tensor context_lens, "           \
  "Tensor block_tables, int max_model_len, *, bool preshuffle=False, "         \
  "bool write_tail=True"

// The ops. Each schema's tensors, scalars and strings reach `invoke` in
// order (tessel.h documents each entry point).
const OpDef kOps[] = {
    // Served by typed kernels (writerOnDevice, registerTyped): no invoke.
    {"indexer_k_cache_write(Tensor k, Tensor slot_mapping, "
     "Tensor(a!) kv_cache, *, bool preshuffle=False, str? scale_fmt=None) "
     "-> ()",
     "tessel_indexer_k_cache_write_opts", nullptr, nullptr},
    {"paged_mqa_logits(" TESSEL_LOGITS_ARGS ") -> Tensor",
     "tessel_paged_mqa_logits", pagedMqaLogits, logitsResult},
    {"paged_mqa_logits.out(" TESSEL_LOGITS_ARGS ", Tensor(a!) out) -> ()",
     "tessel_paged_mqa_logits", pagedMqaLogits, nullptr},
    {"paged_mqa_logits_metadata(Tensor context_lens, int split_tokens, "
     "int num_cus=0) -> Tensor",
     "tessel_paged_mqa_logits_metadata",
     [](void *fn, tessel_context *ctx, const CallArgs &a) {
       TORCH_CHECK(a.i[0] >= 1 && a.i[0] <= INT32_MAX,
                   "tessel::paged_mqa_logits_metadata: split_tokens = ", a.i[0],
                   " is not in [1, 2^31 - 1]");
       return as<decltype(&tessel_paged_mqa_logits_metadata)>(fn)(
           ctx, a.t[0], static_cast<int32_t>(a.i[0]),
           static_cast<int32_t>(a.i[1]), a.t[1], a.stream);
     },
     scheduleResult},
    {"topk_per_row(" TESSEL_TOPK_ARGS ") -> Tensor", "tessel_topk_per_row",
     topkPerRow, topkResult},
    {"topk_per_row.out(" TESSEL_TOPK_ARGS ", Tensor(a!) out) -> ()",
     "tessel_topk_per_row", topkPerRow, nullptr},
};
constexpr size_t kNumOps = sizeof(kOps) / sizeof(kOps[0]);

std::string opName(const OpDef &def) {
  const char *paren = strchr(def.schema, '(');
  return std::string(def.schema, paren - def.schema);
}

// What tessel_torch_bind() resolved. Replaced whole on a re-bind (the old
// one is leaked: a call in flight may still read it).
struct Runtime {
  tessel_context *ctx = nullptr;
  c10::Device device{c10::DeviceType::CPU};
  int cuCount = 0;
  const char *(*lastError)() = nullptr;
  void *fns[kNumOps] = {};
};
std::atomic<const Runtime *> gRuntime{nullptr};

at::Tensor scheduleResult(c10::ArrayRef<c10::IValue> args,
                          const at::TensorOptions &where, const Runtime *rt) {
  int64_t numCus = args[2].toInt();
  if (numCus == 0) {
    TORCH_CHECK(rt, "tessel::paged_mqa_logits_metadata: num_cus = 0 (the "
                    "device's CU count) needs tessel.register_torch_ops() "
                    "first");
    numCus = rt->cuCount;
  }
  TORCH_CHECK(numCus >= 1 && numCus < INT32_MAX,
              "tessel::paged_mqa_logits_metadata: num_cus = ", numCus,
              " is not in [0, 2^31 - 2]");
  return at::empty({numCus + 1, 2}, where.dtype(at::kInt));
}

// torch's dtypes that Tessel takes.
const std::pair<c10::ScalarType, tessel_dtype> kDtypes[] = {
    {c10::ScalarType::Float, TESSEL_DTYPE_F32},
    {c10::ScalarType::BFloat16, TESSEL_DTYPE_BF16},
    {c10::ScalarType::Half, TESSEL_DTYPE_F16},
    {c10::ScalarType::Byte, TESSEL_DTYPE_U8},
    {c10::ScalarType::Int, TESSEL_DTYPE_I32},
    {c10::ScalarType::Long, TESSEL_DTYPE_I64},
    {c10::ScalarType::Float8_e4m3fn, TESSEL_DTYPE_FP8_E4M3FN},
    {c10::ScalarType::Float8_e4m3fnuz, TESSEL_DTYPE_FP8_E4M3FNUZ},
};

tessel_dtype dtypeOf(c10::ScalarType t) {
  for (const auto &[torchType, tesselType] : kDtypes)
    if (torchType == t)
      return tesselType;
  return TESSEL_DTYPE_INVALID;
}

// The name of argument k, for messages; k past the arguments is the result.
std::string argName(const c10::OperatorHandle &op, size_t k) {
  const auto &args = op.schema().arguments();
  return k < args.size() ? args[k].name() : "the result";
}

// Whether argument k is a (possibly optional) tensor, for a None value.
bool isTensorArg(const c10::OperatorHandle &op, size_t k) {
  c10::TypePtr t = op.schema().arguments()[k].type();
  if (auto opt = t->cast<c10::OptionalType>())
    t = opt->getElementType();
  return t->kind() == c10::TypeKind::TensorType;
}

// What describe() found wrong with a tensor, if anything.
enum class Refusal { None, Device, Dtype, Rank };

// Fills `out` from `t`, checking what the C API cannot see: the dtype's
// existence in Tessel, the rank and the device. Formats nothing: a refusal
// is explained by refuse().
inline Refusal describe(const at::Tensor &t, const Runtime &rt,
                        tessel_tensor &out) {
  const c10::Device dev = t.device();
  if (dev.type() != rt.device.type() ||
      (dev.has_index() && rt.device.has_index() &&
       dev.index() != rt.device.index()))
    return Refusal::Device;
  out.dtype = dtypeOf(t.scalar_type());
  if (out.dtype == TESSEL_DTYPE_INVALID)
    return Refusal::Dtype;
  const int64_t rank = t.dim();
  if (rank > TESSEL_MAX_RANK)
    return Refusal::Rank;
  out.rank = static_cast<int32_t>(rank);
  out.data = t.numel() ? t.data_ptr() : nullptr;
  const int64_t *sizes = t.sizes().data();
  const int64_t *strides = t.strides().data();
  for (int64_t d = 0; d < rank; ++d) {
    out.shape[d] = sizes[d];
    out.strides[d] = strides[d];
  }
  return Refusal::None;
}

// Raises "<op>: <arg> ..." for what describe() refused.
[[noreturn]] void refuse(Refusal why, const std::string &op,
                         const std::string &arg, const at::Tensor &t,
                         const Runtime &rt) {
  switch (why) {
  case Refusal::Device:
    TORCH_CHECK(false, op, ": ", arg, " is on ", t.device().str(),
                ", but the Tessel context for torch.ops runs on ",
                rt.device.is_cpu() ? "the emu device, which takes cpu tensors"
                                   : rt.device.str());
  case Refusal::Dtype:
    TORCH_CHECK(false, op, ": ", arg, ": dtype ", t.scalar_type(),
                " is not a Tessel dtype");
  default:
    TORCH_CHECK(false, op, ": ", arg, ": rank ", t.dim(), " > ",
                TESSEL_MAX_RANK);
  }
}

void describe(const c10::OperatorHandle &op, size_t k, const at::Tensor &t,
              const Runtime &rt, tessel_tensor &out) {
  if (Refusal why = describe(t, rt, out); why != Refusal::None)
    refuse(why, op.schema().name(), argName(op, k), t, rt);
}

// Raises the runtime's message as "tessel::<op>: ...". The runtime names the
// op itself ("indexer_k_cache_write: k: ..."), so that prefix is not doubled.
[[noreturn]] void failWithRuntimeError(const std::string &name, // tessel::<op>
                                       const char *msg) {
  const std::string shortName = name.substr(name.find("::") + 2) + ": ";
  if (strncmp(msg, shortName.c_str(), shortName.size()) == 0)
    TORCH_CHECK(false, "tessel::", msg);
  TORCH_CHECK(false, name, ": ", msg);
}

// The stream torch would run this device's work on now; null on the CPU.
// A stream id names one native stream for the life of the process (pool
// streams are never freed; an external stream's id is its handle), so the
// last translation is kept per thread and the native handle asked for only
// when the current stream changes.
tessel_stream currentStream(const c10::Device &dev) {
  if (dev.is_cpu())
    return nullptr;
  struct Last {
    c10::DeviceType type = c10::DeviceType::CPU;
    c10::DeviceIndex index = -1;
    c10::StreamId id = 0;
    void *handle = nullptr;
  };
  thread_local Last last;
  const c10::Stream s =
      c10::impl::getDeviceGuardImpl(dev.type())->getStream(dev);
  if (s.device_type() != last.type || s.device_index() != last.index ||
      s.id() != last.id) {
    last.handle = s.native_handle();
    last.type = s.device_type();
    last.index = s.device_index();
    last.id = s.id();
  }
  return static_cast<tessel_stream>(last.handle);
}

// The CPU and CUDA kernel of kOps[index]: runs it on the device of its
// tensors.
void runOnDevice(size_t index, const c10::OperatorHandle &op,
                 c10::DispatchKeySet, torch::jit::Stack *stack) {
  const OpDef &def = kOps[index];
  const Runtime *rt = gRuntime.load(std::memory_order_acquire);
  TORCH_CHECK(rt, op.schema().name(),
              ": no Tessel context: call tessel.register_torch_ops() first");
  void *fn = rt->fns[index];
  TORCH_CHECK(fn, op.schema().name(), ": the loaded ",
              "libtessel_runtime.so has no ", def.symbol,
              " (it predates this op)");
  const size_t n = op.schema().arguments().size();
  c10::ArrayRef<c10::IValue> args = torch::jit::last(*stack, n);
  tessel_tensor tensors[kMaxTensors + 1];
  CallArgs call;
  int nt = 0, ns = 0, nstr = 0;
  for (size_t k = 0; k < n; ++k) {
    const c10::IValue &v = args[k];
    if (v.isTensor() || (v.isNone() && isTensorArg(op, k))) {
      TORCH_INTERNAL_ASSERT(nt < kMaxTensors, "too many tensor arguments");
      if (v.isTensor()) {
        describe(op, k, v.toTensor(), *rt, tensors[nt]);
        call.t[nt] = &tensors[nt];
      } else {
        call.t[nt] = nullptr;
      }
      ++nt;
    } else if (v.isString() || v.isNone()) {
      TORCH_INTERNAL_ASSERT(nstr < kMaxStrings, "too many string arguments");
      call.s[nstr++] = v.isString() ? v.toStringRef().c_str() : nullptr;
    } else {
      TORCH_INTERNAL_ASSERT(ns < kMaxScalars, "too many scalar arguments");
      TORCH_INTERNAL_ASSERT(v.isInt() || v.isBool(), "argument ",
                            argName(op, k), " is neither int nor bool");
      call.i[ns++] = v.isInt() ? v.toInt() : v.toBool();
    }
  }
  at::Tensor result;
  if (def.result) {
    result = def.result(args, at::TensorOptions().device(rt->device), rt);
    describe(op, n, result, *rt, tensors[nt]);
    call.t[nt] = &tensors[nt];
  }
  call.stream = currentStream(rt->device);
  if (def.invoke(fn, rt->ctx, call) != TESSEL_SUCCESS)
    failWithRuntimeError(op.schema().name(), rt->lastError());
  torch::jit::drop(*stack, n);
  if (def.result)
    torch::jit::push(*stack, std::move(result));
}

// The AutogradCPU and AutogradCUDA kernel of kOps[index]. The ops are not
// differentiable, so a tensor that requires grad under grad mode is an
// error. Plain tensors go straight to the device kernel: that skips the two
// boxed fallbacks torch runs for an op without an autograd kernel
// (autograd's not-implemented one, then ADInplaceOrView's), a good part of
// the cost of a call; the mutated arguments' version counters are bumped
// here as the latter would. Anything else between autograd and the backend
// (fake tensors under torch.compile, functional tensors, Python modes) takes
// the ordinary redispatch.
void runAutograd(size_t index, const c10::OperatorHandle &op,
                 c10::DispatchKeySet ks, torch::jit::Stack *stack) {
  const auto &schema = op.schema().arguments();
  c10::ArrayRef<c10::IValue> args = torch::jit::last(*stack, schema.size());
  if (c10::GradMode::is_enabled())
    for (size_t k = 0; k < args.size(); ++k)
      TORCH_CHECK(!args[k].isTensor() || !args[k].toTensor().requires_grad(),
                  op.schema().name(), ": ", argName(op, k),
                  " requires grad, but Tessel ops are not differentiable "
                  "(call them under torch.no_grad() or on detached tensors)");
  const c10::DispatchKeySet below = ks & c10::after_autograd_keyset;
  const c10::DispatchKey next =
      below.remove(c10::DispatchKey::ADInplaceOrView).highestPriorityTypeId();
  if (next != c10::DispatchKey::CPU && next != c10::DispatchKey::CUDA) {
    op.redispatchBoxed(below, stack);
    return;
  }
  for (size_t k = 0; k < args.size(); ++k) {
    const auto &alias = schema[k].alias_info();
    if (alias && alias->isWrite() && args[k].isTensor())
      args[k].toTensor().unsafeGetTensorImpl()->bump_version();
  }
  runOnDevice(index, op, below, stack);
}

// The Meta kernel (fake tensors, torch.compile) of kOps[index]: the result's
// shape and dtype, nothing run.
void runMeta(size_t index, const c10::OperatorHandle &op, c10::DispatchKeySet,
             torch::jit::Stack *stack) {
  const OpDef &def = kOps[index];
  const size_t n = op.schema().arguments().size();
  at::Tensor result;
  if (def.result)
    result = def.result(torch::jit::last(*stack, n),
                        at::TensorOptions().device(c10::DeviceType::Meta),
                        gRuntime.load(std::memory_order_acquire));
  torch::jit::drop(*stack, n);
  if (def.result)
    torch::jit::push(*stack, std::move(result));
}

// The writer's typed kernels (kOps[kWriter]): what runOnDevice and
// runAutograd do for it, without the argument stack.
constexpr size_t kWriter = 0;
constexpr const char *kWriterName = "tessel::indexer_k_cache_write";
using WriterSig = void(const at::Tensor &, const at::Tensor &,
                       const at::Tensor &, bool,
                       std::optional<c10::string_view>);

// scale_fmt of the cache writer: None (the f32 scale) or "ue8m0".
int32_t scaleFmt(std::optional<c10::string_view> name) {
  if (!name)
    return TESSEL_SCALE_FMT_F32;
  TORCH_CHECK(*name == "ue8m0",
              "tessel::indexer_k_cache_write: scale_fmt must be None or "
              "'ue8m0', got '",
              std::string(*name), "'");
  return TESSEL_SCALE_FMT_UE8M0;
}

void writerOnDevice(const at::Tensor &k, const at::Tensor &slotMapping,
                    const at::Tensor &kvCache, bool preshuffle,
                    std::optional<c10::string_view> fmt) {
  const Runtime *rt = gRuntime.load(std::memory_order_acquire);
  TORCH_CHECK(rt, kWriterName,
              ": no Tessel context: call tessel.register_torch_ops() first");
  auto fn = as<decltype(&tessel_indexer_k_cache_write_opts)>(rt->fns[kWriter]);
  TORCH_CHECK(fn, kWriterName, ": the loaded libtessel_runtime.so has no ",
              kOps[kWriter].symbol, " (it predates this op)");
  const at::Tensor *args[3] = {&k, &slotMapping, &kvCache};
  static const char *const names[3] = {"k", "slot_mapping", "kv_cache"};
  tessel_tensor ts[3];
  for (int i = 0; i < 3; ++i)
    if (Refusal why = describe(*args[i], *rt, ts[i]); why != Refusal::None)
      refuse(why, kWriterName, names[i], *args[i], *rt);
  const tessel_k_cache_write_options o{preshuffle ? 1 : 0, scaleFmt(fmt)};
  if (fn(rt->ctx, &ts[0], &ts[1], &ts[2], &o, currentStream(rt->device)) !=
      TESSEL_SUCCESS)
    failWithRuntimeError(kWriterName, rt->lastError());
}

void writerAutograd(c10::DispatchKeySet ks, const at::Tensor &k,
                    const at::Tensor &slotMapping, const at::Tensor &kvCache,
                    bool preshuffle, std::optional<c10::string_view> fmt) {
  if (c10::GradMode::is_enabled()) {
    const at::Tensor *args[3] = {&k, &slotMapping, &kvCache};
    static const char *const names[3] = {"k", "slot_mapping", "kv_cache"};
    for (int i = 0; i < 3; ++i)
      TORCH_CHECK(!args[i]->requires_grad(), kWriterName, ": ", names[i],
                  " requires grad, but Tessel ops are not differentiable "
                  "(call them under torch.no_grad() or on detached tensors)");
  }
  const c10::DispatchKeySet below = ks & c10::after_autograd_keyset;
  const c10::DispatchKey next =
      below.remove(c10::DispatchKey::ADInplaceOrView).highestPriorityTypeId();
  if (next != c10::DispatchKey::CPU && next != c10::DispatchKey::CUDA) {
    static const auto handle = c10::Dispatcher::singleton()
                                   .findSchemaOrThrow(kWriterName, "")
                                   .typed<WriterSig>();
    handle.redispatch(below, k, slotMapping, kvCache, preshuffle, fmt);
    return;
  }
  kvCache.unsafeGetTensorImpl()->bump_version();
  writerOnDevice(k, slotMapping, kvCache, preshuffle, fmt);
}

void writerMeta(const at::Tensor &, const at::Tensor &, const at::Tensor &,
                bool, std::optional<c10::string_view>) {}

// Registers the typed kernels of the ops that have them; false for the
// others, which get the boxed ones.
bool registerTyped(torch::Library &m, size_t index, const char *name) {
  if (index != kWriter)
    return false;
  m.impl(name,
         torch::dispatch(c10::DispatchKey::CPU, TORCH_FN(writerOnDevice)));
  m.impl(name,
         torch::dispatch(c10::DispatchKey::CUDA, TORCH_FN(writerOnDevice)));
  m.impl(name, torch::dispatch(c10::DispatchKey::Meta, TORCH_FN(writerMeta)));
  m.impl(name, torch::dispatch(c10::DispatchKey::AutogradCPU,
                               TORCH_FN(writerAutograd)));
  m.impl(name, torch::dispatch(c10::DispatchKey::AutogradCUDA,
                               TORCH_FN(writerAutograd)));
  return true;
}

using Run = void (*)(size_t, const c10::OperatorHandle &, c10::DispatchKeySet,
                     torch::jit::Stack *);

// A boxed kernel: `run` for kOps[index].
class Kernel final : public c10::OperatorKernel {
public:
  Kernel(Run run, size_t index) : run_(run), index_(index) {}

  void operator()(const c10::OperatorHandle &op, c10::DispatchKeySet ks,
                  torch::jit::Stack *stack) const {
    run_(index_, op, ks, stack);
  }

private:
  Run run_;
  size_t index_;
};

torch::CppFunction boxed(Run run, size_t index) {
  return torch::CppFunction::makeFromBoxedKernel(
      c10::BoxedKernel::makeFromFunctor(std::make_unique<Kernel>(run, index)));
}

// Which kernel serves which dispatch key.
const std::pair<c10::DispatchKey, Run> kKernels[] = {
    {c10::DispatchKey::CPU, runOnDevice},
    {c10::DispatchKey::CUDA, runOnDevice},
    {c10::DispatchKey::Meta, runMeta},
    {c10::DispatchKey::AutogradCPU, runAutograd},
    {c10::DispatchKey::AutogradCUDA, runAutograd},
};

TORCH_LIBRARY(tessel, m) {
  for (size_t i = 0; i < kNumOps; ++i) {
    m.def(kOps[i].schema);
    const std::string name = opName(kOps[i]);
    if (registerTyped(m, i, name.c_str()))
      continue;
    for (const auto &[key, run] : kKernels)
      m.impl(name.c_str(), torch::dispatch(key, boxed(run, i)));
  }
}

} // namespace

// Binds the ops to a context of the runtime library behind `dlHandle` (the
// handle ctypes got for libtessel_runtime.so). deviceType is 0 for the emu
// device (cpu tensors), 1 for cuda and hip (torch's "cuda" tensors); ordinal
// is the context's device index. Returns 0, or 1 with a message in err.
extern "C" __attribute__((visibility("default"))) int
tessel_torch_bind(void *dlHandle, void *ctx, int deviceType, int ordinal,
                  char *err, size_t errLen) {
  auto fail = [&](const std::string &msg) {
    snprintf(err, errLen, "%s", msg.c_str());
    return 1;
  };
  if (!dlHandle || !ctx)
    return fail("tessel_torch_bind: null library handle or context");
  if (deviceType != 0 && deviceType != 1)
    return fail("tessel_torch_bind: device type " + std::to_string(deviceType) +
                " is neither 0 (cpu) nor 1");
  if (ordinal < 0 || ordinal > INT8_MAX)
    return fail("tessel_torch_bind: ordinal " + std::to_string(ordinal) +
                " is out of range");
  auto rt = std::make_unique<Runtime>();
  rt->ctx = static_cast<tessel_context *>(ctx);
  rt->device = deviceType == 0
                   ? c10::Device(c10::DeviceType::CPU)
                   : c10::Device(c10::DeviceType::CUDA,
                                 static_cast<c10::DeviceIndex>(ordinal));
  rt->lastError =
      reinterpret_cast<const char *(*)()>(dlsym(dlHandle, "tessel_last_error"));
  if (!rt->lastError)
    return fail("tessel_torch_bind: the library has no tessel_last_error; "
                "is it libtessel_runtime.so?");
  auto cuCount = reinterpret_cast<decltype(&tessel_context_cu_count)>(
      dlsym(dlHandle, "tessel_context_cu_count"));
  if (!cuCount)
    return fail("tessel_torch_bind: the library has no "
                "tessel_context_cu_count");
  rt->cuCount = cuCount(rt->ctx);
  for (size_t i = 0; i < kNumOps; ++i)
    rt->fns[i] = dlsym(dlHandle, kOps[i].symbol);
  gRuntime.store(rt.release(), std::memory_order_release);
  return 0;
}
