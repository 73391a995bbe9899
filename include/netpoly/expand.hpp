// Expansion of network outputs into exact polynomials (or polynomials mod p).
#pragma once
#include <algorithm>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "netpoly/model.hpp"
#include "netpoly/context.hpp"
#include "netpoly/rings.hpp"

namespace netpoly {

// Variable index of input entry x[i][c] (row-major), and its printed name x{i}_{c}.
inline slong var_index(const Model& m, std::size_t i, std::size_t c) { return static_cast<slong>(i * m.width + c); }
std::string var_name(std::size_t width, slong v);

// Output entries to analyse: the requested one, the model's `output`, or all.
std::vector<Entry> resolve_outputs(const Model& m, const std::optional<Entry>& requested, bool all);

// Upper estimate of an expansion's size, made before any work: the degree
// bound per layer (attention x3, square x2, product xk, residual keeps the
// lower degrees) and the number of monomials of those degrees in N*d variables.
struct ExpansionEstimate {
  double degree = 0;         // bound on the total degree (not clamped: it can exceed 2^64)
  bool homogeneous = true;   // no residual: every term has exactly `degree`
  double terms = 0;          // bound on the number of terms of one output entry
};
ExpansionEstimate estimate_expansion(const Model& m);

// log binom(n + k - 1, k), the number of monomials of degree exactly k in n
// variables; accurate for any k (a difference of lgamma values is not when k
// is huge); HUGE_VAL when min(n - 1, k) > 10000.
double log_monomial_count(double n, double k);

// Bytes an expansion may need at its peak (terms x packed exponents and
// coefficients, times the intermediate products kept alive).
double expansion_memory_estimate(const Model& m);

// log2 of a bound on every coefficient of delta * y for the given output
// entry (delta the product of weight denominators it involves; HeightRing):
// no expansion, one forward pass.
double coefficient_height_log2(const Model& m, const Entry& e);

// log2 of a bound on |numerator| times denominator of the output entry's value
// at a rational point (HeightRing with the point's sizes): about the bits of
// the exact value there, known before evaluating it.
double value_bits_bound(const Model& m, const Entry& e, const std::vector<Fmpq>& point);

// Exponents are read as 64-bit words: an expansion whose degree bound
// reaches 2^63 is refused (LimitError) whatever --max-terms says.
inline constexpr double kMaxExpansionDegree = 0x1p63;

// Throws LimitError naming the estimate and the flag when terms > max_terms,
// and when the degree bound reaches kMaxExpansionDegree.
void check_expansion_size(const Model& m, double max_terms);

// The degree bound as printed: exact below 2^53, else "about 3.65e+19".
std::string format_degree(double degree);

// Throws LimitError when an exponent or the total degree of p does not fit in
// 63 bits (FLINT stores such exponents, but they cannot be read as words).
// `what` names the reader ("expand --stats", "the coefficient matrix").
void check_exponents_fit(const FmpqMpoly& p, const std::string& what);
void check_exponents_fit(const NmodMpoly& p, const std::string& what);

// Exact expansion over Q of the given output entries (in that order). In a
// lexicographic ring (ORD_LEX) the forward pass runs in a ring of packed
// variables (choose_packing) where that saves exponent words.
std::vector<FmpqMpoly> expand(const PolyRing& R, const Model& m, const std::vector<Entry>& outputs);

// Expansion mod p (weights reduced mod p; throws DomainError if p divides a denominator).
std::vector<NmodMpoly> expand_mod(const ModPolyRing& R, const Model& m, const std::vector<Entry>& outputs);

// A polynomial over Q(i) (a model with Gaussian weights, gauss.hpp): re + i im.
struct GaussPoly {
  FmpqMpoly re, im;
};
// The expansion over Q(i) (the one forward pass, over GaussRing<PolyRing>).
std::vector<GaussPoly> expand_gauss(const PolyRing& R, const Model& m, const std::vector<Entry>& outputs);
// The monomials of a and b (one context), each with coefficient 1: the
// support of a + i b, whose terms and degrees are those of the pair.
FmpqMpoly monomial_union(const FmpqMpoly& a, const FmpqMpoly& b);
// Its monomials (those of re and im): terms, degrees, and the larger height of the two parts.
struct PolyStats;
PolyStats poly_stats(const GaussPoly& p, std::size_t tokens, std::size_t width);

// Per-polynomial statistics.
struct PolyStats {
  slong terms = 0;
  slong degree = -1;                  // total degree (-1 for zero)
  std::vector<slong> token_degree;    // degree in the variables of each token
  ulong height_bits = 0;              // max bits of a numerator after clearing the common denominator
};
PolyStats poly_stats(const FmpqMpoly& p, std::size_t tokens, std::size_t width);
PolyStats poly_stats(const NmodMpoly& p, std::size_t tokens, std::size_t width);

// Output formats: text (human), sympy, singular, latex, json (a term list).
enum class PolyFormat { text, json, sympy, singular, latex };
PolyFormat parse_poly_format(const std::string& s);

// Streams the polynomial term by term (never one giant string).
void write_poly(std::ostream& os, const FmpqMpoly& p, std::size_t width, PolyFormat f);
void write_poly(std::ostream& os, const NmodMpoly& p, std::size_t width, PolyFormat f);
// Term by term with Gaussian coefficients: "(1/2-3i)*x0_0^2" (text, json), "(Rational(1, 2) - 3*I)*x0_0**2"
// (sympy), "(1/2-3*i)*x0_0^2" (singular, ring with minpoly i^2+1), "(\frac{1}{2} - 3i) x_{0,0}^{2}" (latex).
void write_poly(std::ostream& os, const GaussPoly& p, std::size_t width, PolyFormat f);
// One coefficient a + bi as that format writes it ("(1/2-3i)", "i", "-2" in text).
std::string gauss_coeff_text(const Fmpq& re, const Fmpq& im, PolyFormat f);

}  // namespace netpoly
