#!/usr/bin/env python3
"""Writes the register layouts of gfx950's v_mfma_f32_16x16x128_f8f6f4 and
v_mfma_f32_32x32x64_f8f6f4 with FP8 (E4M3) A and B (CBSZ = BLGP = 0), in the
CSV format of AMD's Matrix Instruction Calculator (which does not cover
CDNA4), transcribed from AMD's published tables; runtime/emulator/README.md
names them.

The tables, for an N x N x K instruction (N = 16 or 32, K = 2048 / N):
  A[i][k] (and B[k][i]): lane group g = lane / N (4 groups for N = 16, 2 for
    N = 32) holds, in VGPRs 0-3, K = 16 g .. 16 g + 15, byte b of VGPR r
    being K = 16 g + 4 r + b; VGPRs 4-7 hold the same for K + K/2
    (K = 64 + 16 g .. for 16x16x128, K = 32 + 16 g .. for 32x32x64).
    Lane % N is the row of A (the column of B).
  D[i][j]: lane = j + N * ((i / 4) % (64 / N)), VGPR = i % 4 + 4 * (i / 8)
    for N = 32 and i % 4 for N = 16: CDNA3's accumulator layout.
"""
import os
import sys


def operand_loc(n, k_total, row, k):
    half = k_total // 2
    lane = row + n * ((k % half) // 16)
    reg = 4 * (k // half) + (k % 16) // 4
    byte = k % 4
    return "v%d{%d}.[%d:%d]" % (reg, lane, 8 * byte + 7, 8 * byte)


def acc_loc(n, i, j):
    lane = j + n * ((i // 4) % (64 // n))
    reg = i % 4 + (4 * (i // 8) if n == 32 else 0)
    return "v%d{%d}" % (reg, lane)


def header(instr):
    return ("Architecture: CDNA4\n"
            "Instruction: %s (A and B FP8 E4M3, CBSZ = BLGP = 0)\n"
            "Source: transcribed by cdna4_f8f6f4_tables.py; runtime/emulator/README.md names the AMD documents\n"
            "Block 0\n" % instr)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main(out_dir):
    for n, k_total in ((16, 128), (32, 64)):
        name = "v_mfma_f32_%dx%dx%d_f8f6f4" % (n, n, k_total)
        instr = name.upper()
        base = os.path.join(out_dir, "cdna4_" + name)
        # A[M][K]
        rows = ["A[M][K]," + ",".join(str(k) for k in range(k_total))]
        for i in range(n):
            rows.append(str(i) + "," + ",".join(
                operand_loc(n, k_total, i, k) for k in range(k_total)))
        write(base + "_A_register_layout.csv",
              header(instr) + "\n".join(rows) + "\n")
        # B[K][N]
        rows = ["B[K][N]," + ",".join(str(j) for j in range(n))]
        for k in range(k_total):
            rows.append(str(k) + "," + ",".join(
                operand_loc(n, k_total, j, k) for j in range(n)))
        write(base + "_B_register_layout.csv",
              header(instr) + "\n".join(rows) + "\n")
        # D[M][N]
        rows = ["D[M][N]," + ",".join(str(j) for j in range(n))]
        for i in range(n):
            rows.append(str(i) + "," + ",".join(
                acc_loc(n, i, j) for j in range(n)))
        write(base + "_D_register_layout.csv",
              header(instr) + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__))
