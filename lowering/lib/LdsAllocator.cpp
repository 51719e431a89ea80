//===- LdsAllocator.cpp - One liveness-based LDS layout per kernel --------===//

#include "LdsAllocator.h"

#include "tessel/Lowering/TargetInfo.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace tessel;

namespace {

/// Program-order numbering: every op gets its pre-order index, and the
/// largest index nested inside it (its extent).
struct Numbering {
  DenseMap<Operation *, unsigned> first, last;

  explicit Numbering(Operation *root) {
    unsigned n = 0;
    root->walk<WalkOrder::PreOrder>([&](Operation *op) { first[op] = n++; });
    root->walk<WalkOrder::PostOrder>([&](Operation *op) {
      unsigned l = first[op];
      for (Region &r : op->getRegions())
        for (Block &b : r)
          for (Operation &o : b)
            l = std::max(l, last[&o]);
      last[op] = l;
    });
  }
};

/// End of the live range of the buffer that `op` returns: the extent of
/// every use's ancestor in `op`'s block, so that a use inside a loop keeps
/// the buffer for the whole loop. Uses of views (`isView`) of the buffer
/// count too: results of its users, and results of the ops in `op`'s block
/// that contain a use (a loop that carries the buffer).
FailureOr<unsigned> liveEnd(Operation *op, const Numbering &num,
                            function_ref<bool(Value)> isView) {
  unsigned end = num.last.lookup(op);
  SmallVector<Value> work(op->getResults());
  DenseSet<Value> seen(work.begin(), work.end());
  auto follow = [&](Operation *o) {
    if (!isView)
      return;
    for (Value r : o->getResults())
      if (isView(r) && seen.insert(r).second)
        work.push_back(r);
  };
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      Operation *a = op->getBlock()->findAncestorOpInBlock(*user);
      if (!a)
        return op->emitError("a shared-memory buffer is used outside the "
                             "block that allocates it");
      end = std::max(end, num.last.lookup(a));
      follow(user);
      follow(a);
    }
  }
  return end;
}

bool overlaps(const LdsBuffer &a, const LdsBuffer &b) {
  return a.start <= b.end && b.start <= a.end;
}

/// First-fit over the buffers already placed that are live at the same
/// time: the lowest aligned offset that clears all of them.
int64_t place(const LdsBuffer &b, ArrayRef<const LdsBuffer *> placed) {
  SmallVector<const LdsBuffer *> live;
  for (const LdsBuffer *p : placed)
    if (overlaps(*p, b))
      live.push_back(p);
  llvm::sort(live, [](const LdsBuffer *x, const LdsBuffer *y) {
    return x->offset < y->offset;
  });
  int64_t at = 0;
  for (const LdsBuffer *p : live) {
    if (at + b.bytes <= p->offset)
      break;
    at = std::max<int64_t>(at, llvm::alignTo(p->offset + p->bytes, b.align));
  }
  return at;
}

} // namespace

FailureOr<LdsAllocation>
LdsAllocation::compute(Operation *kernel, const TargetInfo &target,
                       llvm::function_ref<FailureOr<LdsNeed>(Operation *)> need,
                       llvm::function_ref<bool(Value)> isView) {
  LdsAllocation a;
  Numbering num(kernel);
  bool ok = true;
  kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == kernel)
      return;
    FailureOr<LdsNeed> n = need(op);
    if (failed(n)) {
      ok = false;
      return;
    }
    if (n->bytes == 0)
      return;
    LdsBuffer b{op, n->bytes, std::max(1u, n->align), num.first.lookup(op),
                num.last.lookup(op)};
    if (n->outlivesOp) {
      FailureOr<unsigned> end = liveEnd(op, num, isView);
      if (failed(end)) {
        ok = false;
        return;
      }
      b.end = *end;
    }
    if (n->liveOver) {
      b.start = std::min(b.start, num.first.lookup(n->liveOver));
      b.end = std::max(b.end, num.last.lookup(n->liveOver));
    }
    if (n->untilKernelEnd)
      b.end = num.last.lookup(kernel);
    a.index[op] = a.bufs.size();
    a.bufs.push_back(b);
  });
  if (!ok)
    return failure();

  // Largest first: big buffers claim the low offsets, small ones fill gaps.
  SmallVector<LdsBuffer *> order;
  for (LdsBuffer &b : a.bufs)
    order.push_back(&b);
  llvm::stable_sort(order, [](const LdsBuffer *x, const LdsBuffer *y) {
    return x->bytes > y->bytes;
  });
  SmallVector<const LdsBuffer *> placed;
  for (LdsBuffer *b : order) {
    b->offset = place(*b, placed);
    placed.push_back(b);
    a.total = std::max(a.total, b->offset + b->bytes);
  }
  // The buffer's size keeps 16-byte accesses at its end in bounds.
  a.total = llvm::alignTo(a.total, 16);

  uint64_t limit = target.ldsBytesPerWorkgroup();
  if (uint64_t(a.total) > limit) {
    InFlightDiagnostic d = kernel->emitError()
                           << "kernel needs " << a.total
                           << " bytes of LDS, more than the " << limit
                           << " bytes of " << target.name() << "; its "
                           << a.bufs.size() << " buffer(s):";
    for (const LdsBuffer &b : a.bufs)
      d.attachNote(b.op->getLoc()) << b.bytes << " bytes at offset " << b.offset
                                   << " for '" << b.op->getName() << "'";
    return failure();
  }
  return a;
}

int64_t LdsAllocation::offsetOf(Operation *op) const {
  auto it = index.find(op);
  return it == index.end() ? -1 : bufs[it->second].offset;
}
