// LV Lemma 6's witness (App. B.3): the weight assignment (entries 0, ±1, ±1/N,
// ±i/N, i) and the M + 1 template vectors whose grid matricization has the
// M/2 x M/2 sub-matrix Const * (V V^T)^{⊙ λ}, d' = (d - H)/2, λ = 3^(L-2),
// M/2 = ((d' λ)), V the rows Ω^{q} / ||Ω^{q}|| over the compositions q of λ
// into d' parts.
//
// App. B.3 as printed does not fit together; the repaired reading (each
// change and why: docs/findings.md, "LV Lemma 6 as printed") is:
//  * segment h (0-based) of a d-vector is coordinates h d_a .. h d_a + d_a - 1:
//    the first c = (d_a - 1)/2 are the A part, the next c the B part, the
//    last the constant 1 (the marker);
//  * φ maps offset o of head h's A (or B) part to column h c + o of V (the
//    paper steps by d_a - 1 per head, but V has only H c columns);
//  * template t < R carries row t of V in the A parts, template R + t carries
//    row t (the paper: t + 1, out of range at t = R) in the B parts, every
//    template carries the markers, template 2R only the markers;
//  * layer 1: Q = K read head 0's marker (the paper's e_1 e_{d_a}^T), V row
//    α < c is (e_A + i e_B)/N, row c + α is (e_marker - e_A - i e_B)/N (the
//    paper indexes it by α, not α - c), row d_a - 1 is e_marker / N; O embeds
//    the head into its own segment (all layers but the last);
//  * layer 2: Q = K project the A part of the head; V the head's segment;
//  * layers 3..L: Q = K have one row, ones on every non-marker coordinate;
//  * layer L: V reads i times the head's own marker (the paper: head 0's
//    marker for every head), and O writes every head into segment 0, so
//    output (0, 0) sums the heads (with O the segment embedding an output
//    coordinate in segment h sees head h only, ∝ S^(λ-1) s_h, not S^λ).
// Then every position of layer 1 outputs v = [a, 1 - a, 1] per head with
// a = (V_α + i V_β)/N on the A parts, S = <a, a> = 2 i G_{αβ} / N^2 (the rows
// of V have norm 1: the squares cancel), and output (0, 0) of the sub-matrix
// entry (α, β) is i N c^2 κ^3 S^(3β+3) for L >= 3 (κ, β the recursion of
// eqs. (45)-(48)), i N S for L = 2: a constant times G_{αβ}^λ.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "netpoly/flint.hpp"
#include "netpoly/model.hpp"

namespace netpoly {

struct LvWitnessShape {
  std::size_t layers = 2, width = 3, heads = 1, tokens = 2;
  std::uint64_t omega = 2;  // Ω: the paper needs it outside a finite set; 2 unless given
  // The last layer as printed (W^V,L,h = i e_{d_a}: head 0's marker for every
  // head; W^O,L,h the segment embedding) instead of the repaired one. Output
  // (0, 0) then sees head 0 only: ∝ S^(λ-1) s_0, which is eq. (28) only for H = 1.
  bool printed_last = false;
  // Lemma 6 holds for any V with unit rows. rational_v: rows on the unit
  // sphere with rational entries (the stereographic image of seeded integer
  // points, (2t, |t|^2 - 1) / (|t|^2 + 1)) instead of the paper's Ω rows, so
  // the sub-matrix lies in Q(i) and its rank is exact (no prime); the paper's
  // rank argument (Lemmas 7, 8) is for the Ω rows only.
  bool rational_v = false;
};

struct LvWitnessDims {
  std::size_t da = 0, c = 0, dprime = 0, lambda = 0, R = 0;  // R = M/2 = ((d' λ))
};

// Checks the shape (L >= 2, H | d, d_a = d/H odd >= 3, N even >= 2, Ω >= 2,
// ((d' λ)) at most 2000) and returns its dimensions; InputError / LimitError.
LvWitnessDims lv_witness_dims(const LvWitnessShape& s);

// The model: real and imaginary parts (gauss.hpp), output (0, 0).
Model make_lv_witness(const LvWitnessShape& s);

// V's rows. The paper's: the compositions q of λ into d' parts
// (lexicographic) and the squared norms n = sum_r Ω^(2 q_r); V[α][r] =
// Ω^(q_r) / sqrt(n_α) (vnum = Ω^(q_r)). With rational_v: V[α][r] = vnum
// itself, n = 1, q empty.
struct LvTemplates {
  std::vector<std::vector<std::size_t>> q;
  std::vector<Fmpz> n;
  std::vector<std::vector<Fmpq>> vnum;
  // Template t (0..2R), coordinate k: the value is num / sqrt(n[row]), or num
  // itself when row < 0.
  struct Entry {
    Fmpq num;
    long row = -1;
  };
  std::vector<std::vector<Entry>> x;
};
LvTemplates lv_templates(const LvWitnessShape& s);
// The templates as JSON ({"omega", "compositions", "norms2", "templates"}:
// entries "0", "1", or "a/sqrt(n)"), for `make lv-witness --templates`.
std::string lv_templates_json(const LvWitnessShape& s);

// The grid sub-matrix Ĩ x J̃ of output (0, 0) over the partition tokens
// [0, N/2) | [N/2, N), its rank, and a numeric cross-check. The paper's V:
// evaluated modulo a prime p = 1 mod 4 in which every sqrt(n_α) exists
// (chosen consistently: see engines/lv_witness_rank.cpp), a certified lower bound.
// A rational V: exact over Q(i) (half the rank of the realified matrix).
struct LvWitnessRank {
  LvWitnessDims dims;
  std::size_t rank_modp = 0;  // a certified lower bound on the rank over C (exact when `exact`)
  bool exact = false;         // rational V: the rank over Q(i), both ways
  ulong prime = 0;            // 0 when exact
  std::size_t square_roots = 0;  // primes q whose sqrt(q) mod p was chosen
  bool eq28_holds = false;        // sub-matrix == Const * (V V^T)^{⊙ λ} entry by entry (mod p; exactly when `exact`)
  double smax = 0, smin = 0;     // numeric singular values (complex doubles)
  std::size_t numeric_rank = 0;  // singular values above smax * R * 1e-12
  std::string how() const;       // the provenance, in one sentence
};
LvWitnessRank lv_witness_rank(const LvWitnessShape& s);
// The sub-matrix itself, row-major (re, im), for a rational V (InputError otherwise).
std::vector<std::pair<Fmpq, Fmpq>> lv_witness_entries(const LvWitnessShape& s);

}  // namespace netpoly
