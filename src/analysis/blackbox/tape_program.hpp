// The compiled forward pass's programs (blackbox/tape.hpp): the recorded
// instructions on registers, the programs on slots they become, and the
// compiler between them (blackbox/tape_compile.cpp). Internal to the
// black-box's compiled pass (blackbox/tape.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include <flint/flint.h>

#include "analysis/blackbox/tape_ops.hpp"

namespace netpoly::methods::tape {

// One recorded instruction on registers: dst (+)= c + sum s[k] a[k] + sum
// pa[k] pb[k] (Op's form, on registers instead of slots).
struct RecOp {
  bool acc;
  int dst;
  std::vector<int> a;
  std::vector<double> s;
  std::vector<int> pa, pb;
  double c = 0;
  int carry = -1;  // after compile's renaming: the register `acc` adds into (dst is new)
};

// A program on slots: its instructions, the slots its inputs are read into
// (-1: unused) and those its outputs are left in.
struct Program {
  std::vector<Op> ops;
  std::vector<std::uint32_t> src;
  std::vector<double> coef;
  std::vector<std::int64_t> in_slot;
  std::vector<std::uint32_t> out_slot;
  std::size_t slots = 0;
};

// The pass in three programs: A runs once per row (side A alone), B once
// per set of columns (side B alone, kept in Columns::pre), M per chunk of
// columns on what both left (`a_out` and `b_out` are M's inputs, in that
// order). Without the split, B is empty and M reads side B's inputs.
struct Split {
  Program A, B, M;
  std::size_t a_width = 0, b_width = 0;  // values A and B hand to M
  std::size_t recorded = 0;
};

// A residue in [0, p) held as a double (the recorder's scalars).
inline ulong res(double x) { return static_cast<ulong>(x); }

// The recorded pass, folded, pruned to what `out` needs, M's linear
// instructions inlined where that adds no terms, and split by what each
// instruction depends on (`split_b`: side B's own instructions in B;
// otherwise in M).
Split compile(std::vector<RecOp> ops, int regs, const std::vector<std::size_t>& va, const std::vector<std::size_t>& vb,
              int out, ulong p, bool split_b);

}  // namespace netpoly::methods::tape
