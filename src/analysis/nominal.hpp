// The nominal cost model: what a claim's analyses decide on
// (AnalysisContext::nominal), so that `netpoly check` gives the same verdict
// on a busy machine as on a quiet one, and on every machine. An estimate is a
// fixed function of the work — the ring operations of one forward pass,
// counted by running it over a counting ring, times the points; n^3 of a
// rank — at fixed rates, never a measured time. The rates are of the same
// order as this project's 2-core reference machine (bench/), so that a
// nominal second is about a quiet second there; they decide nothing about
// the values, only how far a method goes within --budget.
#pragma once
#include <cstdint>

#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"

namespace netpoly::nominal {

// Seconds per ring operation of a forward pass over residues mod a prime
// below 2^50, point by point (the black-box's values; the grid's mod p).
inline constexpr double kModpOp = 4e-10;
// The same point by point in the scalar ring mod p (the grid's evaluations).
inline constexpr double kModpScalarOp = 4e-9;
// The same over doubles (the numeric method's grid).
inline constexpr double kDoubleOp = 1e-9;
// Seconds per n^3 of a dense rank mod a word-size prime.
inline constexpr double kRankN3 = 3e-11;

// The ring operations (one per add, product or multiply-add) of one forward
// pass of model m that computes output entry e (e.token == SIZE_MAX: every
// entry); a Gaussian model's complex operations count 4 each. Deterministic:
// a function of the model's structure and which weights are zero.
double forward_ops(const Model& m, const Entry& e);

}  // namespace netpoly::nominal
