//===- OpRegistry.h - One declarative description per op --------*- C++ -*-===//
//
// Every op the runtime launches is described once, by an OpSpec in its own
// file under runtime/lib/ops/ (DESIGN.md section 4):
//
//  - symbols: the named integers of a call (sizes, strides, options, values
//    derived from them), each with its domain;
//  - tensors: dtype set, shape per rank as expressions over the symbols
//    (shape relations), stride rule, alignment, whether the op writes it;
//  - options: the scalar arguments of the C entry point;
//  - params: the kernel's launch signature (as in variants.json) in terms of
//    tensors and symbols;
//  - the tuned table: its schema, which columns form the key and how rows
//    name variants by knobs;
//  - hooks for what is not declarative: value checks that read host memory,
//    derived symbols, the heuristic and the grid.
//
// From it the registry derives validation (messages name the argument),
// marshalling, the launch-ABI check at bundle load, table dispatch (exact,
// nearest bucket, heuristic), logging, the C entry points and the JSON
// description the Python binding reads. The launch path allocates nothing
// (but an op's workspace for a stream, on the first launch on that stream).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_RUNTIME_OPS_OPREGISTRY_H
#define TESSEL_RUNTIME_OPS_OPREGISTRY_H

#include "../Device.h"
#include "../TunedTable.h"
#include "tessel/bundle.h"

#include <climits>
#include <string>
#include <vector>

struct tessel_context;

namespace tessel {

struct Variant;

constexpr int kMaxOpSymbols = 48;
constexpr int kMaxOpTensors = 8;
constexpr int kMaxOpParams = 64;
constexpr size_t kMaxHeuristicVariants = 512;

/// A set of tessel_dtype values.
using DtypeSet = uint32_t;
constexpr DtypeSet dtypeBit(tessel_dtype t) { return 1u << unsigned(t); }

/// The name of a dtype value as messages spell it ("invalid" outside the
/// enum).
const char *dtypeName(int32_t dtype);

/// A sum of products of symbols and integer literals ("B*next_n",
/// "num_cus+1", "132"), parsed once when the op is registered.
struct Expr {
  struct Term {
    int64_t coeff = 1;
    std::vector<int> symbols;
  };
  std::string text;
  std::vector<Term> terms;
  /// The single symbol the expression is, or -1.
  int single() const {
    return terms.size() == 1 && terms[0].coeff == 1 &&
                   terms[0].symbols.size() == 1
               ? terms[0].symbols[0]
               : -1;
  }
};

struct SymbolSpec {
  const char *name;
  int64_t min = 0;
  int64_t max = INT64_MAX;
  /// When non-empty, the only values allowed.
  std::vector<int64_t> choices = {};
};

enum class StrideRule {
  /// Row-major dense.
  Contiguous,
  /// Dims 1.. dense; dim 0 (rows) may be padded: its stride is at least the
  /// row's extent, a multiple of rowStrideMultiple, and bound to rowStride.
  Rows,
};

struct TensorSpec {
  const char *name;
  DtypeSet dtypes;
  /// The accepted shapes, one per rank, each dim an expression. A dim that
  /// is a single unbound symbol binds it; any other dim must equal its
  /// value.
  std::vector<std::vector<const char *>> shapes;
  StrideRule strides = StrideRule::Contiguous;
  const char *rowStride = nullptr;
  int64_t rowStrideMultiple = 1;
  int64_t align = 1; // bytes, of the data pointer
  bool written = false;
  /// A binding may allocate it (shape from tessel_op_output_shape); the C
  /// entry points require it.
  bool allocatable = false;
};

/// A scalar argument of the C entry point: a symbol with a default.
struct OptionSpec {
  const char *symbol;
  int64_t dflt;
  /// Optional names of the values (index = value; null: no name, e.g. the
  /// value a binding's None means), for bindings that take names.
  std::vector<const char *> names = {};
  /// 0 stands for the device's CU count (where a device is known).
  bool zeroIsCuCount = false;
};

/// One kernel parameter group of the launch signature (variants.json).
struct ParamSpec {
  enum Kind { Memref, Scalar } kind;
  const char *name;
  /// Memref: the tensor; or nullptr for the op's workspace.
  const char *tensor;
  /// Memref: bytes of the kernel's element type (sizes count those).
  int64_t elemBytes;
  /// Scalar: the symbol and its kind.
  const char *symbol;
  ArgKind scalarKind;
};
inline ParamSpec memrefParam(const char *name, const char *tensor,
                             int64_t elemBytes) {
  return {ParamSpec::Memref, name, tensor, elemBytes, nullptr, ArgKind::Ptr};
}
inline ParamSpec scalarParam(const char *name, ArgKind k, const char *symbol) {
  return {ParamSpec::Scalar, name, nullptr, 0, symbol, k};
}

enum class KeyRole {
  Arch,   // the device's arch: rows of other arches are ignored
  CuNum,  // nearest CU count
  Match,  // must be equal for the nearest-bucket rule
  Bucket, // nearest in log2 (the call's value rounded up to a power of two)
};

struct KeyColumn {
  const char *column;
  KeyRole role;
  const char *symbol = nullptr;
  /// String columns: the name of each symbol value (index = value).
  std::vector<const char *> names = {};
};

/// A variant serves a call only if its knob (or dflt when absent; -1: the
/// knob is required) equals the symbol's value.
struct CallKnob {
  const char *knob;
  const char *symbol;
  int64_t dflt;
};

/// A table row names a variant by kernel and these knobs (dflt when a
/// variant lacks one).
struct RowKnob {
  const char *column;
  const char *knob;
  int64_t dflt;
};

/// A value column copied into a symbol when its row is picked (a launch
/// value that is not a knob, e.g. split_kv).
struct RowValue {
  const char *column;
  const char *symbol;
};

/// A manifest check at bundle load.
struct KnobRule {
  const char *knob;
  bool required;
  int64_t min, max;
};

struct OpSpec;

/// The validated state of one call: tensors, symbol values, extents.
struct OpCall {
  const OpSpec *op = nullptr;
  const tessel_tensor *t[kMaxOpTensors] = {};
  uint64_t bytes[kMaxOpTensors] = {};
  int rankAlt[kMaxOpTensors] = {};
  int64_t sym[kMaxOpSymbols] = {};
  bool bound[kMaxOpSymbols] = {};
  /// Where a symbol was bound: tensor * 16 + dim, or -1.
  int origin[kMaxOpSymbols] = {};
  /// The op's device buffer (see OpSpec::workspaceBytes), may be null.
  void *workspace = nullptr;
  uint64_t workspaceBytes = 0;
  const Device *device = nullptr;
  int cuNum = 0;

  int64_t operator[](int s) const { return sym[s]; }
  void set(int s, int64_t v) {
    sym[s] = v;
    bound[s] = true;
  }
};

enum class PickRule { Exact, Nearest, Heuristic, None };
const char *pickRuleName(PickRule r);

struct OpPick {
  const Variant *variant = nullptr;
  PickRule rule = PickRule::None;
  int line = 0; // table line for Exact/Nearest
  int row = -1; // index into the dispatcher's rows
};

/// Formats an INVALID_ARGUMENT status "<op>: <message>".
Status opError(const OpCall &c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/// The indexer ops' `context_lens`: int32, [B] (one length per sequence)
/// or [B, next_n] (one per row), contiguous (DESIGN.md §3.1).
TensorSpec contextLensTensor();
/// Its kernel parameter: the memref `context_lens`, sized in int32.
ParamSpec contextLensParam();

/// Checks, where device memory is host memory, that each length in tensor
/// `tensor` (a validated contextLensTensor()) is at least 0 and at most
/// `max`; the error names the length and, as `maxName`, the bound (null: no
/// upper bound).
Status checkContextLens(const OpCall &c, int tensor, int64_t max,
                        const char *maxName);

struct OpSpec {
  const char *name;   // op name, table <name>.csv, C entry tessel_<name>
  const char *kernel; // kernel symbol in bundles
  std::vector<SymbolSpec> symbols;
  std::vector<TensorSpec> tensors;
  std::vector<OptionSpec> options;
  std::vector<ParamSpec> params;
  TableSchema schema;
  std::vector<KeyColumn> key;
  std::vector<CallKnob> callKnobs;
  std::vector<RowKnob> rowKnobs;
  std::vector<RowValue> rowValues;
  std::vector<KnobRule> knobRules;
  /// Bytes of a per-context device buffer the op uses on a device with
  /// `cuNum` compute units (null: none).
  uint64_t (*workspaceBytes)(int cuNum) = nullptr;

  /// After the declarative checks: value checks (on host-memory devices
  /// they may read the tensors) and derived symbols.
  Status (*check)(OpCall &c) = nullptr;
  /// True when the call has nothing to do.
  bool (*noop)(const OpCall &c) = nullptr;
  /// Picks among `vs` (the variants that serve the call) when no row does;
  /// may set launch symbols. Null: the first.
  ///
  /// heuristic and plan must be functions of the call's symbols, cuNum and
  /// the variants alone (they read no tensor data): the launch path caches
  /// what they give, per thread, under the symbol values of the call (see
  /// launchOp).
  const Variant *(*heuristic)(OpCall &c, const Variant *const *vs,
                              size_t n) = nullptr;
  /// Sets symbols that depend on the variant and the grid.
  void (*plan)(OpCall &c, const Variant &v, uint32_t grid[3]) = nullptr;
  /// Launches what must run before the kernel on the same stream (e.g. the
  /// schedule of a persistent variant).
  Status (*before)(tessel_context *ctx, OpCall &c, const Variant &v,
                   void *stream) = nullptr;
  /// Whether `v` may serve the call beyond its call knobs, e.g. an
  /// alignment the variant was compiled to assume. A function of the call's
  /// symbols alone, like heuristic and plan. Null: every variant may.
  bool (*accepts)(const OpCall &c, const Variant &v) = nullptr;
  /// Whether `v` reads or writes the workspace. Variants that don't get the
  /// default stream's buffer as their (unused) argument, so that launching
  /// them on a new stream allocates nothing, which CUDA-graph capture
  /// forbids. Null: every variant uses it.
  bool (*usesWorkspace)(const Variant &v) = nullptr;
  /// Whether each workspace buffer must be zero when allocated: for kernels
  /// that read it zero and leave it so (grid-barrier counters, histograms),
  /// which is what keeps launches and graph replays free of a reset.
  bool zeroWorkspace = false;
  /// Why `accepts` refuses `v` (null: no reason to give), for the error of
  /// a call that no variant serves. Off the launch path.
  const char *(*refusal)(const OpCall &c, const Variant &v) = nullptr;

  // Resolved at registration (initialized here, so that a spec's aggregate
  // initializer may end before them).
  std::vector<Expr> shapeExprs[kMaxOpTensors][2] = {};
  std::vector<int> keySym = {}, rowKnobCol = {}, rowValueCol = {},
                   rowValueSym = {}, keyCol = {};
  std::vector<int> callKnobSym = {}, optionSym = {}, paramRef = {};
  std::vector<int> tensorRowStride = {};
  int kernelCol = -1;
  std::string defect = {}; // non-empty: the spec is malformed (a runtime bug)

  int symbol(const char *name) const;
  int tensor(const char *name) const;
};

/// Registers a spec (from a static initializer in its file).
struct OpRegistrar {
  explicit OpRegistrar(OpSpec &spec);
};

/// Every registered op, sorted by name.
const std::vector<const OpSpec *> &opRegistry();
const OpSpec *findOp(const std::string &name);
const OpSpec *findOpByKernel(const std::string &kernel);
/// The index of `op` in opRegistry().
int opIndex(const OpSpec &op);

/// The flattened launch ABI (kinds and "NAME.allocated"-style names).
std::vector<BundleArg> opAbi(const OpSpec &op);
/// Checks a code object of op's kernel: its args against opAbi() and its
/// knobs against the rules.
Status checkOpAbi(const OpSpec &op, const BundleEntry &e);

/// Allocates a workspace buffer of `bytes` for op on dev, zeroed where
/// op.zeroWorkspace says (the context's default-stream buffer and the
/// per-stream ones alike).
Status allocWorkspace(Device &dev, const OpSpec &op, uint64_t bytes,
                      void **out);

/// Validates and binds a call. opts: one value per option (null: the
/// defaults). With skipAllocatable, allocatable tensors may be null and are
/// not checked (for tessel_op_output_shape). dev: null skips the checks
/// against device buffers and the check hook's memory reads. cuNum: the CU
/// count when dev is null (-1: none).
Status bindOpCall(const OpSpec &op, const tessel_tensor *const *ts, size_t nt,
                  const int64_t *opts, size_t nopt, const Device *dev,
                  bool skipAllocatable, OpCall &c, int cuNum = -1);

/// Evaluates an expression over bound symbols (false if one is unbound or
/// it overflows).
bool evalExpr(const Expr &e, const OpCall &c, int64_t &out);

/// Storage of flattened launch parameters, on the caller's stack.
struct LaunchArgs {
  alignas(8) unsigned char slot[kMaxOpParams][8];
  void *params[kMaxOpParams];
  size_t count = 0;
};
/// Flattens a bound call into `a` (params point into a).
void marshalOpCall(const OpCall &c, LaunchArgs &a);

/// A table row of this context's arch.
struct OpRow {
  int line = 0;
  int64_t key[16] = {};
  int64_t knob[16] = {};
  int64_t value[8] = {};
  std::string kernel;
  /// The variants the row names (kernel, row knobs, knobs the key fixes), as
  /// [firstCandidate, firstCandidate + numCandidates) of the dispatcher's
  /// candidate list, in preference order.
  int firstCandidate = 0;
  int numCandidates = 0;
};

/// The dispatcher of one op in one context. pick() allocates nothing and
/// compares integers only: the knobs it needs of each variant are read into
/// a table when it is built.
class OpDispatch {
public:
  void build(const OpSpec &op, const TunedTable &table, const std::string &arch,
             const std::vector<const Variant *> &variants,
             std::vector<std::string> &warnings);
  /// 1. exact: a row equal on every key column (the call's values);
  /// 2. nearest bucket: rows equal on the Match columns; of those the
  ///    cu_num closest to the device's; of those the least sum over Bucket
  ///    columns of |log2(row) - log2(roundUpPow2(call))| (ties: the larger
  ///    buckets);
  /// 3. the op's heuristic over the variants that serve the call.
  /// Rows whose variant does not serve the call are passed over. Row values
  /// are copied into their symbols.
  OpPick pick(OpCall &c) const;
  const std::vector<OpRow> &rows() const { return rows_; }
  const std::vector<const Variant *> &variants() const { return variants_; }
  /// Unique across every dispatcher of the process and every build (never
  /// 0): plans cached under it are never taken for another table or bundle.
  uint64_t generation() const { return generation_; }

private:
  const Variant *rowVariant(const OpCall &c, const OpRow &r) const;
  bool serves(const OpCall &c, size_t variant) const;
  const OpSpec *op_ = nullptr;
  std::vector<OpRow> rows_;
  std::vector<const Variant *> variants_;
  /// callKnobs.size() values per variant: its value of each call knob.
  std::vector<int64_t> callKnobValues_;
  /// Variant indices, per row (OpRow::firstCandidate).
  std::vector<int> candidates_;
  uint64_t generation_ = 0;
};

/// The whole generic launch: validate, pick, plan, marshal, launch. The pick
/// and the plan are cached per thread, keyed by the dispatcher's generation
/// and the values of every symbol after validation (the shape key), so that
/// a call whose shape was seen before validates, marshals and launches, and
/// allocates nothing. On a device without host memory, the last validation
/// of each op is kept per thread too: a call with the same device, options,
/// dtypes, shapes and strides takes its bound symbols and checks only its
/// data pointers (null, alignment).
tessel_status launchOp(tessel_context *ctx, const OpSpec &op,
                       const tessel_tensor *const *ts, size_t nt,
                       const int64_t *opts, size_t nopt, void *stream);

/// Launches op on internal tensors from within another op's launch (the
/// caller holds ctx->mu shared).
Status launchOpLocked(tessel_context *ctx, const OpSpec &op,
                      const tessel_tensor *const *ts, size_t nt,
                      const int64_t *opts, size_t nopt, void *stream);

/// The JSON description of every op (for bindings).
const std::string &opRegistryJson();

/// The dtype of the fp8 bytes a device arch reads and writes.
tessel_dtype fp8DtypeOfArch(const std::string &arch);

} // namespace tessel

#endif
