// The values of a network at points: Python's net(X) and `netpoly eval`.
// Exact over Q, over Q(i) when a weight or an entry of a point is Gaussian
// (a + bi), or mod a prime; the one forward pass (model/forward.hpp) runs
// over each number domain.
#pragma once
#include <string>
#include <vector>

#include "netpoly/model.hpp"

namespace netpoly {

// An exact number a + bi (b = 0: a rational).
struct Exact {
  Fmpq re, im;
  bool operator==(const Exact&) const = default;
};

// One input X: N x d entries, row-major (x[i][c] at i*d + c). A value: the
// N x d_out output, row-major.
using Point = std::vector<Exact>;

// The model format's number text ("3", "-1/2", "123456789012345678901",
// "1/2-3i", "i"); false when `text` is none of them.
bool parse_exact(const std::string& text, Exact& out);
// The same text for x ("p/q", or "a+bi" when x.im != 0).
std::string exact_text(const Exact& x);

// Each point's output, exactly: over Q, or over Q(i) when the model or a
// point has a Gaussian entry. InputError when a point is not N x d.
std::vector<Point> evaluate(const Model& m, const std::vector<Point>& points);

struct ModValues {
  ulong prime = 0;
  // The square root s of -1 that a + bi maps to (a + s b; FLINT's
  // n_sqrtmod(p - 1, p)); 0 when nothing was Gaussian.
  ulong sqrt_minus_one = 0;
  std::vector<std::vector<ulong>> values;  // per point, N x d_out row-major residues
};

// The same mod the prime p (checked: a prime that fits a word). A Gaussian
// model or point needs p = 1 mod 4. DomainError (an input error) when p
// divides a denominator of a weight or of a point. `what` names p in messages.
ModValues evaluate_mod(const Model& m, const std::vector<Point>& points, ulong p, const std::string& what = "the prime");

// Points from JSON text (the file of `netpoly eval --points`): a list of
// N x d matrices, or {"points": [...]}, each entry a number as the model
// format writes a weight. InputError naming `source`, the JSON path and what
// was expected.
std::vector<Point> parse_points(const std::string& text, const std::string& source, const Model& m);

}  // namespace netpoly
