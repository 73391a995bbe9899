// The black-box's compiled forward pass: one output entry's forward pass
// recorded once as a straight-line program, then run over many points.
//
// The layers run once over a recording ring (TapeRing, blackbox/tape.cpp):
// every ring operation they call becomes an instruction on numbered
// registers, so the program is written by the same layer code as every other
// number domain. The program is then simplified — constants folded (a
// known zero drops a term, a known factor turns a product into a linear
// term, `r += ...` on a known r becomes an assignment), instructions the
// entry does not need removed, linear instructions of M inlined into those
// that read them linearly (where that adds no terms) — and split by what
// each value depends on:
// side A's inputs alone (run once per row), side B's alone (once per set of
// columns, kept beside them: BatchEval::prepare), and both (per chunk of 64
// columns). Registers get slots that are reused once their value is dead, so
// every slot stays in the core's first-level cache: no allocation per
// operation and no intermediate batch streamed through memory. Each
// instruction is a sum of products reduced mod p exactly (the arithmetic:
// blackbox/tape_ops.hpp), so the residues equal BatchModpRing's
// (tests/test_batch_eval.cpp, with every instruction set).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "analysis/blackbox/rounds.hpp"
#include "netpoly/network.hpp"

namespace netpoly::methods {

// The kernels the compiled pass runs on: "avx512" or "avx2" (the widest
// this CPU has), or "portable" (no compiled pass: BatchModpRing). The
// environment variable NETPOLY_SIMD=avx2 or =portable narrows the choice
// (bench/ and the tests compare them); the arithmetic and the residues are
// the same on each.
std::string simd_choice();

// Whether make_tape_eval compiles a pass for p here: AVX2 and FMA
// (BatchF64Ring::supported()), 3 <= p < 2^50 (kMaxPrime) and simd_choice()
// other than "portable".
bool tape_applies(ulong p);

// A BatchEval of entry `out` (token * width + channel) of `net` (its weights
// mod p as doubles, as BatchF64Ring's scalars), side A on the inputs `va`,
// side B on `vb`; `need` marks the last layer's entries wanted; nullptr
// unless tape_applies(p).
std::unique_ptr<BatchEval> make_tape_eval(const Network<double>& net, ulong p, std::vector<std::size_t> va,
                                          std::vector<std::size_t> vb, const Need& need, std::size_t out);

// The compiled pass's size (tests): instructions recorded, kept in each
// program (A once per row, B once per set of columns, M per chunk of
// columns), M's slots and the values A and B hand to M (M's inputs, which
// keep their slots); `split`: with B's values prepared (else B's
// instructions run in M). Zeros for another evaluator.
struct TapeStats {
  std::size_t recorded = 0, a_ops = 0, b_ops = 0, m_ops = 0, m_slots = 0, a_width = 0, b_width = 0;
};
TapeStats tape_stats(const BatchEval& e, bool split = true);

// Prepares C for e (a compiled pass) without the side-B split, as prepare()
// does when B's values would not fit (tests).
void prepare_without_split(const BatchEval& e, Columns& C);

}  // namespace netpoly::methods
