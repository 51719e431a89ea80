//===- OpRegistry.cpp - Validation, marshalling and dispatch of ops -------===//
//
// The generic machinery behind every OpSpec (OpRegistry.h). Nothing here
// knows a particular op.
//
//===----------------------------------------------------------------------===//

#include "OpRegistry.h"
#include "../Context.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tessel {

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

const char *dtypeName(int32_t t) {
  switch (t) {
  case TESSEL_DTYPE_F32:
    return "f32";
  case TESSEL_DTYPE_BF16:
    return "bf16";
  case TESSEL_DTYPE_F16:
    return "f16";
  case TESSEL_DTYPE_U8:
    return "uint8";
  case TESSEL_DTYPE_I32:
    return "int32";
  case TESSEL_DTYPE_I64:
    return "int64";
  case TESSEL_DTYPE_FP8_E4M3FN:
    return "fp8_e4m3fn";
  case TESSEL_DTYPE_FP8_E4M3FNUZ:
    return "fp8_e4m3fnuz";
  default:
    return "invalid";
  }
}

const char *pickRuleName(PickRule r) {
  switch (r) {
  case PickRule::Exact:
    return "exact";
  case PickRule::Nearest:
    return "nearest-bucket";
  case PickRule::Heuristic:
    return "heuristic";
  case PickRule::None:
    return "none";
  }
  return "?";
}

tessel_dtype fp8DtypeOfArch(const std::string &arch) {
  const CodeTarget *t = preferredCodeTarget(arch);
  return t ? t->fp8 : TESSEL_DTYPE_FP8_E4M3FN;
}

Status opError(const OpCall &c, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return Status::error(TESSEL_ERROR_INVALID_ARGUMENT,
                       std::string(c.op->name) + ": " + buf);
}

TensorSpec contextLensTensor() {
  return {"context_lens",
          dtypeBit(TESSEL_DTYPE_I32),
          {{"B"}, {"B", "next_n"}},
          StrideRule::Contiguous,
          nullptr,
          1,
          4};
}

ParamSpec contextLensParam() {
  return memrefParam("context_lens", "context_lens", 4);
}

Status checkContextLens(const OpCall &c, int tensor, int64_t max,
                        const char *maxName) {
  const tessel_tensor *t = c.t[tensor];
  const int32_t *lens = static_cast<const int32_t *>(t->data);
  int64_t count = 1;
  for (int32_t d = 0; d < t->rank; ++d)
    count *= t->shape[d];
  for (int64_t i = 0; i < count; ++i) {
    if (lens[i] < 0)
      return opError(c, "context_lens[%" PRId64 "] = %d is negative", i,
                     lens[i]);
    if (maxName && lens[i] > max)
      return opError(c,
                     "context_lens[%" PRId64 "] = %d is greater than %s = "
                     "%" PRId64,
                     i, lens[i], maxName, max);
  }
  return Status::ok();
}

namespace {

// Reads a tensor's dtype as a plain integer: callers may store any value in
// the enum field, and loading an out-of-range enum is undefined in C++.
int32_t rawDtype(const tessel_tensor *t) {
  int32_t v;
  static_assert(sizeof(t->dtype) == sizeof(v), "dtype is 32-bit");
  memcpy(&v, &t->dtype, sizeof(v));
  return v;
}

std::string dtypeList(DtypeSet s) {
  std::vector<std::string> names;
  for (int d = 0; d < 32; ++d)
    if (s & (1u << d))
      names.push_back(dtypeName(d));
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

std::string domainText(const SymbolSpec &s) {
  if (!s.choices.empty()) {
    std::string out = "one of ";
    for (size_t i = 0; i < s.choices.size(); ++i)
      out += format("%s%lld", i ? ", " : "", (long long)s.choices[i]);
    return out;
  }
  if (s.min == s.max)
    return format("%lld", (long long)s.min);
  if (s.max == INT64_MAX)
    return format(">= %lld", (long long)s.min);
  return format("in [%lld, %lld]", (long long)s.min, (long long)s.max);
}

bool inDomain(const SymbolSpec &s, int64_t v) {
  if (!s.choices.empty())
    return std::find(s.choices.begin(), s.choices.end(), v) != s.choices.end();
  return v >= s.min && v <= s.max;
}

int log2Floor(int64_t v) {
  int l = 0;
  while (v > 1) {
    v >>= 1;
    ++l;
  }
  return l;
}

//===----------------------------------------------------------------------===//
// Registration: resolve names, parse expressions
//===----------------------------------------------------------------------===//

std::vector<const OpSpec *> &mutableRegistry() {
  static std::vector<const OpSpec *> r;
  return r;
}

bool parseExpr(const OpSpec &op, const char *text, Expr &e, std::string &err) {
  e.text = text;
  e.terms.clear();
  std::string s = text;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t plus = s.find('+', pos);
    std::string term = s.substr(
        pos, plus == std::string::npos ? std::string::npos : plus - pos);
    Expr::Term t;
    size_t p2 = 0;
    while (p2 <= term.size()) {
      size_t star = term.find('*', p2);
      std::string f = term.substr(
          p2, star == std::string::npos ? std::string::npos : star - p2);
      int64_t lit;
      if (parseInt64(f, lit)) {
        t.coeff *= lit;
      } else {
        int idx = op.symbol(f.c_str());
        if (idx < 0) {
          err = format("dim '%s' names no symbol '%s'", text, f.c_str());
          return false;
        }
        t.symbols.push_back(idx);
      }
      if (star == std::string::npos)
        break;
      p2 = star + 1;
    }
    e.terms.push_back(t);
    if (plus == std::string::npos)
      break;
    pos = plus + 1;
  }
  return true;
}

void resolve(OpSpec &op) {
  auto fail = [&](const std::string &m) {
    if (op.defect.empty())
      op.defect = std::string(op.name) + ": " + m;
  };
  if (op.symbols.size() > size_t(kMaxOpSymbols) ||
      op.tensors.size() > size_t(kMaxOpTensors))
    fail("too many symbols or tensors");
  for (size_t i = 0; i < op.symbols.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (!strcmp(op.symbols[i].name, op.symbols[j].name))
        fail(format("symbol '%s' declared twice", op.symbols[i].name));
  auto sym = [&](const char *n) {
    int i = n ? op.symbol(n) : -1;
    if (n && i < 0)
      fail(format("no symbol '%s'", n));
    return i;
  };
  auto col = [&](const char *n) {
    for (size_t i = 0; i < op.schema.columns.size(); ++i)
      if (!strcmp(op.schema.columns[i].name, n))
        return int(i);
    fail(format("no table column '%s'", n));
    return -1;
  };
  for (size_t t = 0; t < op.tensors.size() && t < size_t(kMaxOpTensors); ++t) {
    const TensorSpec &ts = op.tensors[t];
    if (ts.shapes.empty() || ts.shapes.size() > 2)
      fail(format("tensor '%s' needs one or two shapes", ts.name));
    for (size_t a = 0; a < ts.shapes.size() && a < 2; ++a) {
      op.shapeExprs[t][a].clear();
      for (const char *d : ts.shapes[a]) {
        Expr e;
        std::string err;
        if (!parseExpr(op, d, e, err))
          fail(format("tensor '%s': %s", ts.name, err.c_str()));
        op.shapeExprs[t][a].push_back(e);
      }
    }
    op.tensorRowStride.push_back(sym(ts.rowStride));
  }
  op.optionSym.clear();
  for (const OptionSpec &o : op.options)
    op.optionSym.push_back(sym(o.symbol));
  op.paramRef.clear();
  for (const ParamSpec &p : op.params)
    op.paramRef.push_back(p.kind == ParamSpec::Scalar ? sym(p.symbol)
                          : p.tensor                  ? op.tensor(p.tensor)
                                                      : -1);
  for (size_t i = 0; i < op.params.size(); ++i)
    if (op.params[i].kind == ParamSpec::Memref && op.params[i].tensor &&
        op.paramRef[i] < 0)
      fail(format("param '%s' names no tensor", op.params[i].name));
  op.keySym.clear();
  op.keyCol.clear();
  for (const KeyColumn &k : op.key) {
    op.keySym.push_back(sym(k.symbol));
    op.keyCol.push_back(col(k.column));
  }
  op.callKnobSym.clear();
  for (const CallKnob &k : op.callKnobs)
    op.callKnobSym.push_back(sym(k.symbol));
  op.rowKnobCol.clear();
  for (const RowKnob &k : op.rowKnobs)
    op.rowKnobCol.push_back(col(k.column));
  op.rowValueCol.clear();
  op.rowValueSym.clear();
  for (const RowValue &v : op.rowValues) {
    op.rowValueCol.push_back(col(v.column));
    op.rowValueSym.push_back(sym(v.symbol));
  }
  op.kernelCol = op.schema.columns.empty() ? -1 : col("kernel");
  if (op.key.size() > 16 || op.rowKnobs.size() > 16 || op.rowValues.size() > 8)
    fail("too many key, knob or value columns");
  size_t flat = 0;
  for (const ParamSpec &p : op.params)
    flat += p.kind == ParamSpec::Memref ? 5 : 1;
  if (flat > size_t(kMaxOpParams))
    fail("too many kernel parameters");
}

} // namespace

int OpSpec::symbol(const char *n) const {
  for (size_t i = 0; i < symbols.size(); ++i)
    if (!strcmp(symbols[i].name, n))
      return int(i);
  return -1;
}

int OpSpec::tensor(const char *n) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (!strcmp(tensors[i].name, n))
      return int(i);
  return -1;
}

OpRegistrar::OpRegistrar(OpSpec &spec) {
  resolve(spec);
  auto &r = mutableRegistry();
  r.push_back(&spec);
  std::sort(r.begin(), r.end(), [](const OpSpec *a, const OpSpec *b) {
    return strcmp(a->name, b->name) < 0;
  });
}

const std::vector<const OpSpec *> &opRegistry() { return mutableRegistry(); }

const OpSpec *findOp(const std::string &name) {
  for (const OpSpec *op : opRegistry())
    if (name == op->name)
      return op;
  return nullptr;
}

const OpSpec *findOpByKernel(const std::string &kernel) {
  for (const OpSpec *op : opRegistry())
    if (kernel == op->kernel)
      return op;
  return nullptr;
}

int opIndex(const OpSpec &op) {
  const auto &r = opRegistry();
  for (size_t i = 0; i < r.size(); ++i)
    if (r[i] == &op)
      return int(i);
  return -1;
}

//===----------------------------------------------------------------------===//
// Launch ABI
//===----------------------------------------------------------------------===//

std::vector<BundleArg> opAbi(const OpSpec &op) {
  std::vector<BundleArg> a;
  for (const ParamSpec &p : op.params) {
    if (p.kind == ParamSpec::Scalar) {
      a.push_back(
          {p.name, p.scalarKind, p.scalarKind == ArgKind::I64 ? 8u : 4u});
      continue;
    }
    for (const char *f : {"allocated", "aligned", "offset", "size", "stride"}) {
      bool ptr = !strcmp(f, "allocated") || !strcmp(f, "aligned");
      a.push_back({std::string(p.name) + "." + f,
                   ptr ? ArgKind::Ptr : ArgKind::I64, 8});
    }
  }
  return a;
}

namespace {
std::string signatureText(const OpSpec &op) {
  std::string s;
  for (const ParamSpec &p : op.params)
    s += format("%s%s %s", s.empty() ? "" : ", ",
                p.kind == ParamSpec::Memref ? "memref"
                                            : argKindName(p.scalarKind),
                p.name);
  return s;
}
} // namespace

Status checkOpAbi(const OpSpec &op, const BundleEntry &e) {
  std::vector<BundleArg> abi = opAbi(op);
  auto bad = [&](const std::string &why) {
    return Status::error(
        TESSEL_ERROR_BUNDLE,
        format("code object '%s': its %zu arguments do not match the launch "
               "ABI of %s (%zu params: %s): %s",
               e.name.c_str(), e.args.size(), op.kernel, abi.size(),
               signatureText(op).c_str(), why.c_str()));
  };
  if (e.args.size() != abi.size())
    return bad(format("expected %zu", abi.size()));
  // Kinds only: the JIT names arguments by position (arg0.allocated, ...).
  for (size_t i = 0; i < abi.size(); ++i) {
    if (e.args[i].kind != abi[i].kind)
      return bad(format("argument %zu (%s) is %s, expected %s", i,
                        e.args[i].name.c_str(), argKindName(e.args[i].kind),
                        argKindName(abi[i].kind)));
  }
  for (const KnobRule &r : op.knobRules) {
    int64_t v;
    bool has = e.knob(r.knob, v);
    if (!has && r.required)
      return Status::error(TESSEL_ERROR_BUNDLE,
                           format("code object '%s': knob %s is missing",
                                  e.name.c_str(), r.knob));
    if (has && (v < r.min || v > r.max))
      return Status::error(
          TESSEL_ERROR_BUNDLE,
          format("code object '%s': knob %s must be in [%lld, %lld], got %lld",
                 e.name.c_str(), r.knob, (long long)r.min, (long long)r.max,
                 (long long)v));
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Workspace
//===----------------------------------------------------------------------===//

Status allocWorkspace(Device &dev, const OpSpec &op, uint64_t bytes,
                      void **out) {
  *out = nullptr;
  void *data = nullptr;
  if (Status s = dev.memAlloc(bytes, &data))
    return s;
  if (op.zeroWorkspace)
    if (Status s = dev.memZero(data, bytes)) {
      (void)dev.memFree(data);
      return s.prefix("zeroing it: ");
    }
  *out = data;
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

bool evalExpr(const Expr &e, const OpCall &c, int64_t &out) {
  int64_t sum = 0;
  for (const Expr::Term &t : e.terms) {
    int64_t v = t.coeff;
    for (int s : t.symbols) {
      if (!c.bound[s] || __builtin_mul_overflow(v, c.sym[s], &v))
        return false;
    }
    if (__builtin_add_overflow(sum, v, &sum))
      return false;
  }
  out = sum;
  return true;
}

namespace {

std::string originText(const OpCall &c, int s) {
  int o = c.origin[s];
  if (o < 0)
    return "";
  return format(" (%s shape[%d])", c.op->tensors[o / 16].name, o % 16);
}

Status bindOption(OpCall &c, size_t i, int64_t v) {
  const OpSpec &op = *c.op;
  int s = op.optionSym[i];
  const SymbolSpec &ss = op.symbols[s];
  if (v == 0 && op.options[i].zeroIsCuCount && c.cuNum > 0)
    v = c.cuNum;
  if (!inDomain(ss, v))
    return opError(c, "%s must be %s, got %lld", ss.name,
                   domainText(ss).c_str(), (long long)v);
  c.set(s, v);
  c.origin[s] = -1;
  return Status::ok();
}

Status checkDims(OpCall &c, int ti) {
  const OpSpec &op = *c.op;
  const TensorSpec &ts = op.tensors[ti];
  const tessel_tensor &t = *c.t[ti];
  const std::vector<Expr> &dims = op.shapeExprs[ti][c.rankAlt[ti]];
  for (int d = 0; d < t.rank; ++d) {
    const Expr &e = dims[d];
    int single = e.single();
    int64_t got = t.shape[d];
    if (single >= 0 && !c.bound[single]) {
      const SymbolSpec &ss = op.symbols[single];
      if (!inDomain(ss, got))
        return opError(c, "%s: shape[%d] (%s) must be %s, got %" PRId64,
                       ts.name, d, ss.name, domainText(ss).c_str(), got);
      c.set(single, got);
      c.origin[single] = ti * 16 + d;
      continue;
    }
    int64_t want;
    if (!evalExpr(e, c, want))
      return opError(c, "%s: shape[%d] (%s) overflows", ts.name, d,
                     e.text.c_str());
    if (got == want)
      continue;
    if (single >= 0)
      return opError(
          c, "%s: shape[%d] = %" PRId64 " does not match %s = %" PRId64 "%s",
          ts.name, d, got, op.symbols[single].name, want,
          originText(c, single).c_str());
    if (e.terms.size() == 1 && e.terms[0].symbols.empty()) {
      // A fixed size; name it by the symbol-free label if the spec has one.
      return opError(c, "%s: shape[%d] must be %" PRId64 ", got %" PRId64,
                     ts.name, d, want, got);
    }
    return opError(c, "%s: shape[%d] = %" PRId64 " must be %s = %" PRId64,
                   ts.name, d, got, e.text.c_str(), want);
  }
  return Status::ok();
}

Status checkStrides(OpCall &c, int ti, bool empty) {
  const OpSpec &op = *c.op;
  const TensorSpec &ts = op.tensors[ti];
  const tessel_tensor &t = *c.t[ti];
  int first = ts.strides == StrideRule::Rows ? 1 : 0;
  int64_t want = 1, rowElems = 1;
  for (int d = t.rank - 1; d >= first; --d) {
    if (!empty && t.shape[d] != 1 && t.strides[d] != want) {
      if (d == t.rank - 1 && ts.strides == StrideRule::Rows)
        return opError(c, "%s: inner stride must be 1, got %" PRId64, ts.name,
                       t.strides[d]);
      return opError(c,
                     "%s: must be contiguous%s; strides[%d] = %" PRId64
                     ", expected %" PRId64,
                     ts.name, first ? " after dim 0" : "", d, t.strides[d],
                     want);
    }
    if (__builtin_mul_overflow(want, t.shape[d], &want))
      return opError(c, "%s: extent overflows 64 bits", ts.name);
  }
  rowElems = want;
  if (ts.strides != StrideRule::Rows)
    return Status::ok();
  // The row stride the kernel sees; with at most one row it is never used,
  // so pass the dense one (which keeps the kernel's divisibility promise).
  int64_t rs = t.shape[0] > 1 && !empty ? t.strides[0] : rowElems;
  if (rs < rowElems)
    return opError(c,
                   "%s: row stride %" PRId64 " is smaller than a row (%" PRId64
                   " elements; rows overlap)",
                   ts.name, rs, rowElems);
  if (rs % ts.rowStrideMultiple != 0)
    return opError(c,
                   "%s: row stride %" PRId64 " must be a multiple of %lld "
                   "elements",
                   ts.name, rs, (long long)ts.rowStrideMultiple);
  int s = op.tensorRowStride[ti];
  if (s >= 0) {
    if (!inDomain(op.symbols[s], rs))
      return opError(c, "%s: row stride %" PRId64 " must be %s", ts.name, rs,
                     domainText(op.symbols[s]).c_str());
    c.set(s, rs);
    c.origin[s] = -1;
  }
  return Status::ok();
}

Status checkTensor(OpCall &c, int ti) {
  const OpSpec &op = *c.op;
  const TensorSpec &ts = op.tensors[ti];
  const tessel_tensor *t = c.t[ti];
  if (!t)
    return opError(c, "%s is null", ts.name);
  int alt = -1;
  for (size_t a = 0; a < ts.shapes.size(); ++a)
    if (int(ts.shapes[a].size()) == t->rank)
      alt = int(a);
  if (alt < 0) {
    std::string ranks;
    for (size_t a = 0; a < ts.shapes.size(); ++a)
      ranks += format("%s%zu", a ? " or " : "", ts.shapes[a].size());
    return opError(c, "%s: rank must be %s, got %d", ts.name, ranks.c_str(),
                   t->rank);
  }
  c.rankAlt[ti] = alt;
  bool empty = false;
  for (int i = 0; i < t->rank; ++i) {
    if (t->shape[i] < 0)
      return opError(c, "%s: shape[%d] = %" PRId64 " is negative", ts.name, i,
                     t->shape[i]);
    empty |= t->shape[i] == 0;
  }
  // No stride of an empty tensor, nor that of a dimension of size 1, is ever
  // used (numpy reports 0 for them), so they may be anything.
  for (int i = 0; i < t->rank && !empty; ++i)
    if (t->shape[i] > 1 && t->strides[i] < 0)
      return opError(c, "%s: strides[%d] = %" PRId64 " is negative", ts.name, i,
                     t->strides[i]);
  int32_t dt = rawDtype(t);
  if (dt < 0 || dt >= 32 || !(ts.dtypes & (1u << dt)))
    return opError(c, "%s: dtype must be %s, got %s", ts.name,
                   dtypeList(ts.dtypes).c_str(), dtypeName(dt));
  if (Status s = checkDims(c, ti))
    return s;
  if (Status s = checkStrides(c, ti, empty))
    return s;
  if (empty) {
    c.bytes[ti] = 0;
    return Status::ok();
  }
  if (!t->data)
    return opError(c, "%s: data is null", ts.name);
  if (reinterpret_cast<uintptr_t>(t->data) % uintptr_t(ts.align) != 0)
    return opError(c, "%s: data %p is not %lld-byte aligned", ts.name, t->data,
                   (long long)ts.align);
  if (!tensorByteExtent(*t, c.bytes[ti]) || c.bytes[ti] > uint64_t(INT64_MAX))
    return opError(c, "%s: extent overflows 64 bits", ts.name);
  return Status::ok();
}

} // namespace

Status bindOpCall(const OpSpec &op, const tessel_tensor *const *ts, size_t nt,
                  const int64_t *opts, size_t nopt, const Device *dev,
                  bool skipAllocatable, OpCall &c, int cuNum) {
  c = OpCall();
  c.op = &op;
  c.device = dev;
  c.cuNum = dev ? dev->cuCount() : std::max(cuNum, 0);
  if (!op.defect.empty())
    return Status::error(TESSEL_ERROR_INTERNAL, op.defect);
  if (nt != op.tensors.size())
    return opError(c, "expected %zu tensors, got %zu", op.tensors.size(), nt);
  if (opts && nopt != op.options.size())
    return opError(c, "expected %zu options, got %zu", op.options.size(), nopt);
  for (int &o : c.origin)
    o = -1;
  for (size_t i = 0; i < op.options.size(); ++i)
    if (Status s = bindOption(c, i, opts ? opts[i] : op.options[i].dflt))
      return s;
  for (size_t i = 0; i < nt; ++i) {
    c.t[i] = ts ? ts[i] : nullptr;
    if (skipAllocatable && op.tensors[i].allocatable)
      continue;
    if (Status s = checkTensor(c, int(i)))
      return s;
  }
  if (dev && !skipAllocatable) {
    // The declared extents must fit the buffers the device knows, before the
    // check hook reads anything and before the kernel does.
    for (size_t i = 0; i < nt; ++i)
      if (Status s = checkTensorArg(*dev, op.name, op.tensors[i].name, *c.t[i],
                                    c.bytes[i]))
        return s;
  }
  if (op.check)
    return op.check(c);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Marshalling
//===----------------------------------------------------------------------===//

void marshalOpCall(const OpCall &c, LaunchArgs &a) {
  const OpSpec &op = *c.op;
  size_t n = 0;
  auto put = [&](const void *v, size_t size) {
    memset(a.slot[n], 0, 8);
    memcpy(a.slot[n], v, size);
    a.params[n] = a.slot[n];
    ++n;
  };
  for (size_t i = 0; i < op.params.size(); ++i) {
    const ParamSpec &p = op.params[i];
    int ref = op.paramRef[i];
    if (p.kind == ParamSpec::Scalar) {
      int64_t v = c.sym[ref];
      int32_t v32 = static_cast<int32_t>(v);
      if (p.scalarKind == ArgKind::I64)
        put(&v, 8);
      else
        put(&v32, 4);
      continue;
    }
    // memref<?xT>: (allocated, aligned, offset 0, size in T, stride 1).
    void *data = ref >= 0 ? c.t[ref]->data : c.workspace;
    uint64_t bytes = ref >= 0 ? c.bytes[ref] : c.workspaceBytes;
    int64_t size = static_cast<int64_t>(bytes) / p.elemBytes, zero = 0, one = 1;
    put(&data, sizeof(void *));
    put(&data, sizeof(void *));
    put(&zero, 8);
    put(&size, 8);
    put(&one, 8);
  }
  a.count = n;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

bool OpDispatch::serves(const OpCall &c, size_t variant) const {
  const size_t n = op_->callKnobs.size();
  const int64_t *want = callKnobValues_.data() + variant * n;
  for (size_t i = 0; i < n; ++i)
    if (want[i] != c.sym[op_->callKnobSym[i]])
      return false;
  return !op_->accepts || op_->accepts(c, *variants_[variant]);
}

const Variant *OpDispatch::rowVariant(const OpCall &c, const OpRow &r) const {
  for (int i = 0; i < r.numCandidates; ++i) {
    int v = candidates_[r.firstCandidate + i];
    if (serves(c, size_t(v)))
      return variants_[v];
  }
  return nullptr;
}

namespace {
// Whether variant v is one the row names: its kernel, its row knobs, and
// the call knobs that the row's key fixes (e.g. k_bf16 from k_dtype).
bool rowNames(const OpSpec &op, const OpRow &r, const Variant &v) {
  if (v.entry->kernel != r.kernel)
    return false;
  for (size_t i = 0; i < op.rowKnobs.size(); ++i)
    if (v.knob(op.rowKnobs[i].knob, op.rowKnobs[i].dflt) != r.knob[i])
      return false;
  for (size_t i = 0; i < op.callKnobs.size(); ++i)
    for (size_t k = 0; k < op.key.size(); ++k)
      if (op.keySym[k] >= 0 && op.keySym[k] == op.callKnobSym[i] &&
          v.knob(op.callKnobs[i].knob, op.callKnobs[i].dflt) != r.key[k])
        return false;
  return true;
}

std::atomic<uint64_t> dispatchGenerations{0};
} // namespace

void OpDispatch::build(const OpSpec &op, const TunedTable &table,
                       const std::string &arch,
                       const std::vector<const Variant *> &variants,
                       std::vector<std::string> &warnings) {
  op_ = &op;
  generation_ = ++dispatchGenerations;
  rows_.clear();
  variants_.clear();
  callKnobValues_.clear();
  candidates_.clear();
  for (const Variant *v : variants)
    if (v->entry->kernel == op.kernel) {
      variants_.push_back(v);
      for (const CallKnob &k : op.callKnobs)
        callKnobValues_.push_back(v->knob(k.knob, k.dflt));
    }
  for (const TableRow &tr : table.rows) {
    OpRow row;
    row.line = tr.line;
    bool keep = true;
    for (size_t k = 0; keep && k < op.key.size(); ++k) {
      const KeyColumn &kc = op.key[k];
      const TableCell &cell = tr.cells[op.keyCol[k]];
      if (kc.role == KeyRole::Arch) {
        keep = cell.s == arch;
        continue;
      }
      if (kc.names.empty()) {
        row.key[k] = cell.i;
        continue;
      }
      int idx = -1;
      for (size_t n = 0; n < kc.names.size(); ++n)
        if (kc.names[n] && cell.s == kc.names[n])
          idx = int(n);
      if (idx < 0) {
        std::string names;
        for (const char *n : kc.names)
          if (n)
            names += std::string(names.empty() ? "" : " or ") + n;
        warnings.push_back(format("%s:%d: %s '%s' is not %s; row ignored",
                                  table.file.c_str(), tr.line, kc.column,
                                  cell.s.c_str(), names.c_str()));
        keep = false;
      }
      row.key[k] = idx;
    }
    if (!keep)
      continue;
    row.kernel = tr.cells[op.kernelCol].s;
    for (size_t i = 0; i < op.rowKnobs.size(); ++i)
      row.knob[i] = tr.cells[op.rowKnobCol[i]].i;
    for (size_t i = 0; i < op.rowValues.size(); ++i)
      row.value[i] = tr.cells[op.rowValueCol[i]].i;
    row.firstCandidate = int(candidates_.size());
    for (size_t v = 0; v < variants_.size(); ++v)
      if (rowNames(op, row, *variants_[v]))
        candidates_.push_back(int(v));
    row.numCandidates = int(candidates_.size()) - row.firstCandidate;
    if (row.numCandidates == 0) {
      if (!variants_.empty()) {
        std::string knobs;
        for (size_t i = 0; i < op.callKnobs.size(); ++i)
          for (size_t k = 0; k < op.key.size(); ++k)
            if (op.keySym[k] >= 0 && op.keySym[k] == op.callKnobSym[i])
              knobs += format(" %s=%lld", op.callKnobs[i].knob,
                              (long long)row.key[k]);
        for (size_t i = 0; i < op.rowKnobs.size(); ++i)
          knobs +=
              format(" %s=%lld", op.rowKnobs[i].knob, (long long)row.knob[i]);
        warnings.push_back(format("%s:%d: no loaded variant of %s with%s; row "
                                  "ignored",
                                  table.file.c_str(), tr.line,
                                  row.kernel.c_str(), knobs.c_str()));
      }
      continue;
    }
    rows_.push_back(row);
  }
}

OpPick OpDispatch::pick(OpCall &c) const {
  OpPick p;
  const OpSpec &op = *op_;
  auto callKey = [&](size_t k) -> int64_t {
    if (op.key[k].role == KeyRole::CuNum)
      return c.cuNum;
    return c.sym[op.keySym[k]];
  };
  auto take = [&](size_t ri, const Variant *v, PickRule rule) {
    p.variant = v;
    p.rule = rule;
    p.line = rows_[ri].line;
    p.row = int(ri);
    for (size_t i = 0; i < op.rowValues.size(); ++i)
      c.set(op.rowValueSym[i], rows_[ri].value[i]);
  };
  // 1. Exact.
  for (size_t ri = 0; ri < rows_.size(); ++ri) {
    bool eq = true;
    for (size_t k = 0; eq && k < op.key.size(); ++k)
      eq = op.key[k].role == KeyRole::Arch || rows_[ri].key[k] == callKey(k);
    if (!eq)
      continue;
    if (const Variant *v = rowVariant(c, rows_[ri])) {
      take(ri, v, PickRule::Exact);
      return p;
    }
  }
  // 2. Nearest bucket.
  auto sameShape = [&](const OpRow &r) {
    for (size_t k = 0; k < op.key.size(); ++k)
      if (op.key[k].role == KeyRole::Match && r.key[k] != callKey(k))
        return false;
    return true;
  };
  int cuCol = -1;
  for (size_t k = 0; k < op.key.size(); ++k)
    if (op.key[k].role == KeyRole::CuNum)
      cuCol = int(k);
  auto cuDiff = [&](const OpRow &r) -> int64_t {
    return cuCol < 0 ? 0 : std::llabs(r.key[cuCol] - c.cuNum);
  };
  int64_t bestCu = INT64_MAX;
  for (const OpRow &r : rows_)
    if (sameShape(r) && rowVariant(c, r))
      bestCu = std::min(bestCu, cuDiff(r));
  if (bestCu != INT64_MAX) {
    int best = -1;
    int64_t bestDist = INT64_MAX;
    for (size_t ri = 0; ri < rows_.size(); ++ri) {
      const OpRow &r = rows_[ri];
      if (!sameShape(r) || cuDiff(r) != bestCu || !rowVariant(c, r))
        continue;
      int64_t dist = 0;
      bool larger = false, decided = false;
      for (size_t k = 0; k < op.key.size(); ++k) {
        if (op.key[k].role != KeyRole::Bucket)
          continue;
        int want = log2Floor(roundUpPow2(callKey(k)));
        dist += std::abs(log2Floor(r.key[k]) - want);
        if (!decided && best >= 0 && r.key[k] != rows_[best].key[k]) {
          larger = r.key[k] > rows_[best].key[k];
          decided = true;
        }
      }
      if (best < 0 || dist < bestDist || (dist == bestDist && larger)) {
        best = int(ri);
        bestDist = dist;
      }
    }
    take(size_t(best), rowVariant(c, rows_[best]), PickRule::Nearest);
    return p;
  }
  // 3. Heuristic, over the variants that serve the call (bundle order).
  const Variant *cand[kMaxHeuristicVariants];
  size_t n = 0;
  for (size_t v = 0; v < variants_.size() && n < kMaxHeuristicVariants; ++v)
    if (serves(c, v))
      cand[n++] = variants_[v];
  if (n == 0)
    return p;
  p.variant = op.heuristic ? op.heuristic(c, cand, n) : cand[0];
  p.rule = p.variant ? PickRule::Heuristic : PickRule::None;
  return p;
}

} // namespace tessel

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

namespace tessel {
namespace {

std::string keyValueText(const OpSpec &op, const OpCall &c) {
  std::string s;
  for (size_t k = 0; k < op.key.size(); ++k) {
    const KeyColumn &kc = op.key[k];
    if (kc.role == KeyRole::Arch || kc.role == KeyRole::CuNum)
      continue;
    int64_t v = c.sym[op.keySym[k]];
    if (!kc.names.empty() && v >= 0 && size_t(v) < kc.names.size() &&
        kc.names[v])
      s += format(" %s=%s", kc.column, kc.names[v]);
    else
      s += format(" %s=%lld", kc.column, (long long)v);
  }
  return s;
}

void logPick(const tessel_context *ctx, const OpCall &c, const OpPick &p,
             const uint32_t grid[3]) {
  const OpSpec &op = *c.op;
  const BundleEntry &e = *p.variant->entry;
  std::string knobs, g;
  for (const auto &k : e.knobs)
    knobs += format("%s%s=%lld", knobs.empty() ? "" : " ", k.first.c_str(),
                    (long long)k.second);
  for (size_t i = 0; i < op.rowValues.size(); ++i)
    knobs += format(" %s=%lld", op.rowValues[i].symbol,
                    (long long)c.sym[op.rowValueSym[i]]);
  g = grid[1] == 1 && grid[2] == 1
          ? format("%u", grid[0])
          : format("%ux%ux%u", grid[0], grid[1], grid[2]);
  fprintf(stderr,
          "tessel: %s arch=%s cu_num=%d%s -> %s (%s) rule=%s line=%d grid=%s "
          "block=%u\n",
          op.name, ctx->device->arch().c_str(), ctx->device->cuCount(),
          keyValueText(op, c).c_str(), e.name.c_str(), knobs.c_str(),
          pickRuleName(p.rule), p.line, g.c_str(), e.block[0]);
}

// The op's reasons (OpSpec::refusal) for refusing the loaded variants that
// have the call's knobs, each once: "; <variant>: <reason>".
std::string refusalText(const tessel_context *ctx, const OpCall &c) {
  const OpSpec &op = *c.op;
  if (!op.refusal)
    return "";
  std::string out;
  std::vector<const char *> seen;
  for (const Variant *v : ctx->ops[opIndex(op)].dispatch.variants()) {
    bool knobsMatch = true;
    for (size_t i = 0; knobsMatch && i < op.callKnobs.size(); ++i)
      knobsMatch = v->knob(op.callKnobs[i].knob, op.callKnobs[i].dflt) ==
                   c.sym[op.callKnobSym[i]];
    const char *why = knobsMatch ? op.refusal(c, *v) : nullptr;
    if (!why || std::find(seen.begin(), seen.end(), why) != seen.end())
      continue;
    seen.push_back(why);
    out += format("; %s: %s", v->entry->name.c_str(), why);
  }
  return out;
}

Status noKernel(const tessel_context *ctx, const OpCall &c) {
  const OpSpec &op = *c.op;
  std::string knobs;
  for (size_t i = 0; i < op.callKnobs.size(); ++i)
    knobs += format("%s%s=%lld", knobs.empty() ? "" : " ", op.callKnobs[i].knob,
                    (long long)c.sym[op.callKnobSym[i]]);
  return Status::error(
      TESSEL_ERROR_NO_KERNEL,
      format("%s: no code object for target %s (%s)%s%s in the loaded "
             "bundles serves the call%s; load one with "
             "tessel_context_load_bundle() or TESSEL_BUNDLE",
             op.name, ctx->device->arch().c_str(), ctx->device->kind(),
             knobs.empty() ? "" : " with ", knobs.c_str(),
             refusalText(ctx, c).c_str()));
}

// A pick and plan, cached per thread under the shape key: the dispatcher's
// generation and every symbol's value (and whether it is bound) after
// validation. The heuristic and the plan are functions of those alone
// (OpSpec), so a hit gives what recomputing them would.
struct CachedPlan {
  uint64_t generation = 0; // 0: empty
  uint64_t boundIn = 0, boundOut = 0;
  int64_t symIn[kMaxOpSymbols];
  int64_t symOut[kMaxOpSymbols];
  OpPick pick;
  uint32_t grid[3];
};
// Per thread, two ways per set: the ops of one decode step (writer,
// schedule, logits, top-k) run in turn, and two of them whose keys share a
// set would otherwise evict each other on every call.
constexpr size_t kPlanSets = 16, kPlanWays = 2;
struct PlanSet {
  CachedPlan way[kPlanWays];
  unsigned victim = 0; // the least recently used way
};
thread_local PlanSet planCache[kPlanSets];

uint64_t boundMask(const OpCall &c, size_t n) {
  uint64_t m = 0;
  for (size_t i = 0; i < n; ++i)
    m |= uint64_t(c.bound[i]) << i;
  return m;
}

// The set of the call's shape key; symbols that are not bound count as 0.
PlanSet &planSet(const OpCall &c, uint64_t generation, size_t n) {
  uint64_t h = generation * 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ uint64_t(c.bound[i] ? c.sym[i] : 0)) * 0x100000001b3ull;
  return planCache[(h ^ (h >> 29)) % kPlanSets];
}

bool samePlanKey(const CachedPlan &p, const OpCall &c, uint64_t generation,
                 size_t n) {
  if (p.generation != generation || p.boundIn != boundMask(c, n))
    return false;
  for (size_t i = 0; i < n; ++i)
    if (c.bound[i] && c.sym[i] != p.symIn[i])
      return false;
  return true;
}

// Picks and plans the call (or takes both from the cache); fills grid.
OpPick pickAndPlan(const OpState &st, OpCall &c, uint32_t grid[3]) {
  const OpSpec &op = *c.op;
  const size_t n = op.symbols.size();
  const uint64_t gen = st.dispatch.generation();
  PlanSet &set = planSet(c, gen, n);
  for (unsigned w = 0; w < kPlanWays; ++w) {
    const CachedPlan &hit = set.way[w];
    if (!samePlanKey(hit, c, gen, n))
      continue;
    for (size_t i = 0; i < n; ++i) {
      c.bound[i] = (hit.boundOut >> i) & 1;
      if (c.bound[i])
        c.sym[i] = hit.symOut[i];
    }
    memcpy(grid, hit.grid, sizeof(hit.grid));
    set.victim = (w + 1) % kPlanWays;
    return hit.pick;
  }
  const uint64_t boundIn = boundMask(c, n);
  int64_t symIn[kMaxOpSymbols];
  memcpy(symIn, c.sym, n * sizeof(int64_t));
  OpPick pick = st.dispatch.pick(c);
  grid[0] = grid[1] = grid[2] = 1;
  if (!pick.variant)
    return pick;
  if (op.plan)
    op.plan(c, *pick.variant, grid);
  CachedPlan &slot = set.way[set.victim];
  set.victim = (set.victim + 1) % kPlanWays;
  slot.generation = gen;
  slot.boundIn = boundIn;
  memcpy(slot.symIn, symIn, n * sizeof(int64_t));
  slot.boundOut = boundMask(c, n);
  memcpy(slot.symOut, c.sym, n * sizeof(int64_t));
  slot.pick = pick;
  memcpy(slot.grid, grid, sizeof(slot.grid));
  return pick;
}

// The op's workspace for `stream` and variant `v`: the default stream's, or
// for a variant that uses it (OpSpec::usesWorkspace) the stream's own,
// taken from the spares or allocated on its first launch there (not again:
// steady-state launches allocate nothing).
Status bindWorkspace(tessel_context *ctx, OpState &st, OpCall &c,
                     const Variant &v, void *stream) {
  c.workspace = st.workspace;
  c.workspaceBytes = st.workspaceBytes;
  if (!stream || !st.workspace ||
      (c.op->usesWorkspace && !c.op->usesWorkspace(v)))
    return Status::ok();
  std::lock_guard<std::mutex> lock(ctx->workspaceMu);
  for (const OpState::StreamWorkspace &w : st.streamWorkspaces)
    if (w.stream == stream) {
      c.workspace = w.data;
      return Status::ok();
    }
  void *data = nullptr;
  if (!st.spareWorkspaces.empty()) {
    data = st.spareWorkspaces.back();
    st.spareWorkspaces.pop_back();
  } else if (Status s = allocWorkspace(*ctx->device, *c.op, st.workspaceBytes,
                                       &data)) {
    return s.prefix(
        std::string(c.op->name) +
        ": cannot allocate the workspace of a new stream (the " +
        std::to_string(kSpareStreamWorkspaces) +
        " spare ones are taken; inside a CUDA-graph capture, launch once on "
        "the capturing stream before capturing): ");
  }
  st.streamWorkspaces.push_back({stream, data});
  c.workspace = data;
  return Status::ok();
}

Status launchBound(tessel_context *ctx, OpCall &c, void *stream) {
  const OpSpec &op = *c.op;
  OpState &st = ctx->ops[opIndex(op)];
  uint32_t grid[3];
  OpPick pick = pickAndPlan(st, c, grid);
  if (!pick.variant)
    return noKernel(ctx, c);
  const Variant &v = *pick.variant;
  if (Status s = bindWorkspace(ctx, st, c, v, stream))
    return s;
  if (logTunedConfigEnabled())
    logPick(ctx, c, pick, grid);
  if (op.before)
    if (Status s = op.before(ctx, c, v, stream))
      return s;
  LaunchArgs a;
  marshalOpCall(c, a);
  if (Status s = ctx->device->launch(v.fn, grid, v.entry->block, a.params,
                                     a.count, stream))
    return s.prefix(std::string(op.name) + ": ");
  return Status::ok();
}

// What validation reads of a call besides the data pointers: the device
// (its CU count feeds options), the options, and per tensor its presence,
// dtype, rank, shape and strides. Two calls with equal signatures bind the
// same symbols and extents, or fail alike, on a device whose memory the host
// cannot read: there no check reads tensor values (OpSpec::check) and no
// extent is checked against buffers (Device::checkExtent). The data
// pointers are checked on every call (null, alignment).
constexpr size_t kSignatureWords =
    1 + kMaxOpSymbols + kMaxOpTensors * (2 + 2 * TESSEL_MAX_RANK);
struct CallSignature {
  size_t n = 0;
  int64_t w[kSignatureWords];
  bool operator==(const CallSignature &o) const {
    return n == o.n && memcmp(w, o.w, n * sizeof(int64_t)) == 0;
  }
};

// False when the call is one the slow path must see (to explain it).
bool signatureOf(const OpSpec &op, const tessel_tensor *const *ts, size_t nt,
                 const int64_t *opts, size_t nopt, const Device *dev,
                 CallSignature &sig) {
  if (!ts || nt != op.tensors.size() || (opts && nopt != op.options.size()))
    return false;
  size_t n = 0;
  sig.w[n++] = int64_t(reinterpret_cast<uintptr_t>(dev));
  for (size_t i = 0; i < op.options.size(); ++i)
    sig.w[n++] = opts ? opts[i] : op.options[i].dflt;
  for (size_t i = 0; i < nt; ++i) {
    const tessel_tensor *t = ts[i];
    if (!t || t->rank < 0 || t->rank > TESSEL_MAX_RANK)
      return false;
    sig.w[n++] = int64_t(t->dtype);
    sig.w[n++] = t->rank;
    for (int d = 0; d < t->rank; ++d) {
      sig.w[n++] = t->shape[d];
      sig.w[n++] = t->strides[d];
    }
  }
  sig.n = n;
  return true;
}

// The last call of each op that validated, per thread (ops past the table
// are not cached).
constexpr size_t kValidatedOps = 16;
struct ValidatedCall {
  CallSignature sig;
  OpCall call;
};
thread_local ValidatedCall validatedCalls[kValidatedOps];

// The data pointer checks of checkTensor, for a call whose signature
// validated before.
bool pointersValid(const OpCall &c) {
  for (size_t i = 0; i < c.op->tensors.size(); ++i)
    if (c.bytes[i] != 0 &&
        (!c.t[i]->data || reinterpret_cast<uintptr_t>(c.t[i]->data) %
                                  uintptr_t(c.op->tensors[i].align) !=
                              0))
      return false;
  return true;
}

// bindOpCall, or on a device without host memory a copy of the last
// validated call of the same signature with this call's tensors.
Status bindOpCallCached(const OpSpec &op, const tessel_tensor *const *ts,
                        size_t nt, const int64_t *opts, size_t nopt,
                        const Device *dev, OpCall &c) {
  const size_t index = size_t(opIndex(op));
  CallSignature sig;
  if (dev->hostMemory() || index >= kValidatedOps ||
      !signatureOf(op, ts, nt, opts, nopt, dev, sig))
    return bindOpCall(op, ts, nt, opts, nopt, dev, false, c);
  ValidatedCall &last = validatedCalls[index];
  if (last.call.op == &op && last.sig == sig) {
    c = last.call;
    for (size_t i = 0; i < nt; ++i)
      c.t[i] = ts[i];
    if (pointersValid(c))
      return Status::ok();
  }
  if (Status s = bindOpCall(op, ts, nt, opts, nopt, dev, false, c))
    return s;
  last.sig = sig;
  last.call = c;
  return Status::ok();
}

} // namespace

Status launchOpLocked(tessel_context *ctx, const OpSpec &op,
                      const tessel_tensor *const *ts, size_t nt,
                      const int64_t *opts, size_t nopt, void *stream) {
  OpCall c;
  if (Status s = bindOpCall(op, ts, nt, opts, nopt, ctx->device, false, c))
    return s;
  if (op.noop && op.noop(c))
    return Status::ok();
  return launchBound(ctx, c, stream);
}

tessel_status launchOp(tessel_context *ctx, const OpSpec &op,
                       const tessel_tensor *const *ts, size_t nt,
                       const int64_t *opts, size_t nopt, void *stream) {
  return guardApi(op.name, [&]() -> tessel_status {
    if (!ctx)
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT, "%s: ctx is null",
                          op.name);
    OpCall c;
    if (Status s = bindOpCallCached(op, ts, nt, opts, nopt, ctx->device, c))
      return setLastError(s);
    if (op.noop && op.noop(c)) {
      clearLastError();
      return TESSEL_SUCCESS;
    }
    std::shared_lock<std::shared_mutex> lock(ctx->mu);
    if (Status s = launchBound(ctx, c, stream))
      return setLastError(s);
    clearLastError();
    return TESSEL_SUCCESS;
  });
}

//===----------------------------------------------------------------------===//
// The description bindings read
//===----------------------------------------------------------------------===//

namespace {
std::string jsonList(const std::vector<std::string> &items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i)
    s += (i ? ", " : "") + items[i];
  return s + "]";
}
std::string quoted(const char *s) { return format("\"%s\"", s); }

std::string tensorJson(const TensorSpec &t) {
  std::vector<std::string> dtypes, shapes;
  for (int d = 0; d < 32; ++d)
    if (t.dtypes & (1u << d))
      dtypes.push_back(quoted(dtypeName(d)));
  for (const auto &shape : t.shapes) {
    std::vector<std::string> dims;
    for (const char *d : shape)
      dims.push_back(quoted(d));
    shapes.push_back(jsonList(dims));
  }
  return format("{\"name\": \"%s\", \"dtypes\": %s, \"shapes\": %s, "
                "\"written\": %s, \"allocatable\": %s}",
                t.name, jsonList(dtypes).c_str(), jsonList(shapes).c_str(),
                t.written ? "true" : "false", t.allocatable ? "true" : "false");
}

std::string optionJson(const OpSpec &op, size_t i) {
  const SymbolSpec &s = op.symbols[op.optionSym[i]];
  std::vector<std::string> choices;
  for (int64_t v : s.choices)
    choices.push_back(format("%lld", (long long)v));
  std::vector<std::string> names;
  for (const char *n : op.options[i].names)
    names.push_back(n ? quoted(n) : "null");
  return format("{\"name\": \"%s\", \"default\": %lld, \"min\": %lld, "
                "\"max\": %lld, \"choices\": %s, \"names\": %s, "
                "\"zero_is_cu_count\": %s}",
                s.name, (long long)op.options[i].dflt, (long long)s.min,
                (long long)s.max, jsonList(choices).c_str(),
                jsonList(names).c_str(),
                op.options[i].zeroIsCuCount ? "true" : "false");
}
} // namespace

const std::string &opRegistryJson() {
  static const std::string json = [] {
    std::vector<std::string> ops;
    for (size_t i = 0; i < opRegistry().size(); ++i) {
      const OpSpec &op = *opRegistry()[i];
      std::vector<std::string> tensors, options;
      for (const TensorSpec &t : op.tensors)
        tensors.push_back(tensorJson(t));
      for (size_t o = 0; o < op.options.size(); ++o)
        options.push_back(optionJson(op, o));
      ops.push_back(format("{\"name\": \"%s\", \"index\": %zu, \"tensors\": "
                           "%s, \"options\": %s}",
                           op.name, i, jsonList(tensors).c_str(),
                           jsonList(options).c_str()));
    }
    return "{\"ops\": " + jsonList(ops) + "}";
  }();
  return json;
}

} // namespace tessel

using namespace tessel;

namespace {
const OpSpec *opAt(int op) {
  const auto &r = opRegistry();
  return op >= 0 && size_t(op) < r.size() ? r[op] : nullptr;
}
} // namespace

extern "C" {

const char *tessel_op_registry_json(void) { return opRegistryJson().c_str(); }

int tessel_op_find(const char *name) {
  const OpSpec *op = name ? findOp(name) : nullptr;
  return op ? opIndex(*op) : -1;
}

tessel_status tessel_op_launch(tessel_context *ctx, int op,
                               const tessel_tensor *tensors, size_t num_tensors,
                               const int64_t *options, size_t num_options,
                               tessel_stream stream) {
  const OpSpec *spec = opAt(op);
  if (!spec)
    return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                        "tessel_op_launch: no op with index %d", op);
  if (num_tensors > size_t(kMaxOpTensors) || (num_tensors && !tensors) ||
      (num_options && !options))
    return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                        "%s: tensors or options are null or too many",
                        spec->name);
  const tessel_tensor *ts[kMaxOpTensors];
  for (size_t i = 0; i < num_tensors; ++i)
    ts[i] = &tensors[i];
  return launchOp(ctx, *spec, ts, num_tensors, options, num_options, stream);
}

tessel_status tessel_op_output_shape(const tessel_context *ctx, int op,
                                     const tessel_tensor *tensors,
                                     size_t num_tensors, const int64_t *options,
                                     size_t num_options, size_t index,
                                     tessel_tensor *out) {
  const OpSpec *spec = opAt(op);
  return guardApi("tessel_op_output_shape", [&]() -> tessel_status {
    if (!spec || !out || num_tensors > size_t(kMaxOpTensors) ||
        (num_tensors && !tensors) || (num_options && !options))
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                          "tessel_op_output_shape: bad op index or null "
                          "argument");
    if (index >= spec->tensors.size() || !spec->tensors[index].allocatable)
      return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                          "%s: tensor %zu is not one the op can allocate",
                          spec->name, index);
    const tessel_tensor *ts[kMaxOpTensors];
    for (size_t i = 0; i < num_tensors; ++i)
      ts[i] = &tensors[i];
    OpCall c;
    if (Status s =
            bindOpCall(*spec, ts, num_tensors, options, num_options, nullptr,
                       true, c, ctx ? ctx->device->cuCount() : -1))
      return setLastError(s);
    const TensorSpec &t = spec->tensors[index];
    *out = tessel_tensor{};
    for (int d = 0; d < 32; ++d)
      if (t.dtypes & (1u << d)) {
        out->dtype = static_cast<tessel_dtype>(d);
        break;
      }
    const std::vector<Expr> &dims = spec->shapeExprs[index][0];
    out->rank = int32_t(dims.size());
    int64_t stride = 1;
    for (int d = out->rank - 1; d >= 0; --d) {
      if (!evalExpr(dims[d], c, out->shape[d]) || out->shape[d] < 0)
        return setLastError(TESSEL_ERROR_INVALID_ARGUMENT,
                            "%s: %s: shape[%d] (%s) cannot be computed",
                            spec->name, t.name, d, dims[d].text.c_str());
      out->strides[d] = stride;
      stride *= out->shape[d];
    }
    clearLastError();
    return TESSEL_SUCCESS;
  });
}

} // extern "C"
