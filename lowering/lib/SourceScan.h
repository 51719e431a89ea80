//===- SourceScan.h - Walking the code of IR source text ---------*- C++
//-*-===//
//
// The source screens (Pipeline.h) look at code only: string literals and
// `//` comments (which hold FileCheck patterns in lit tests) are skipped.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_LOWERING_SOURCESCAN_H
#define TESSEL_LOWERING_SOURCESCAN_H

#include "llvm/ADT/StringRef.h"

namespace tessel {

/// Calls onCode(i) for each byte offset i of `source` outside string
/// literals and `//` comments, and onLine(next) after each newline (`next`
/// is the offset of the next line). onCode returns the last offset it
/// consumed (i, or more to skip ahead).
template <typename CodeFn, typename LineFn>
void forEachCodeOffset(llvm::StringRef source, CodeFn onCode, LineFn onLine) {
  for (size_t i = 0, e = source.size(); i < e; ++i) {
    char c = source[i];
    if (c == '\n') {
      onLine(i + 1);
    } else if (c == '"') {
      // A string literal ends at its closing quote or the line's end.
      for (++i; i < e && source[i] != '"' && source[i] != '\n'; ++i)
        if (source[i] == '\\' && i + 1 < e && source[i + 1] != '\n')
          ++i;
      if (i < e && source[i] == '\n')
        --i;
    } else if (c == '/' && i + 1 < e && source[i + 1] == '/') {
      while (i + 1 < e && source[i + 1] != '\n')
        ++i;
    } else {
      i = onCode(i);
    }
  }
}

} // namespace tessel

#endif // TESSEL_LOWERING_SOURCESCAN_H
