// Separation ranks of models with Gaussian weights (engines/gauss_sep.cpp says how).
#pragma once
#include <vector>

#include "netpoly/seprank.hpp"

namespace netpoly {

// F = re (1 + u v) + im (u - v) in two more variables u (last but one, side
// A) and v (last, side B): its coefficient matrix is [[A, -B], [B, A]].
FmpqMpoly realified_polynomial(const FmpqMpoly& re, const FmpqMpoly& im);

// The methods that read a polynomial, on the realified F, each number halved.
SepResult analyse_realified(const FmpqMpoly& F, const Partition& P, const SepOptions& o, const AnalysisContext& run);

// The partition of F: P's variables, u on side A, v on side B.
Partition realified_partition(const Partition& P);

// A method's number on F as a number over Q(i): halved (an exact rank
// exactly, a lower bound rounded up, an upper bound down).
void halve_realified(MethodRun& r);

}  // namespace netpoly
