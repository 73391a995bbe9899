// Expansion of network outputs into exact polynomials (or polynomials mod p).
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "netpoly/model.hpp"
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
  unsigned long degree = 0;  // bound on the total degree
  bool homogeneous = true;   // no residual: every term has exactly `degree`
  double terms = 0;          // bound on the number of terms of one output entry
};
ExpansionEstimate estimate_expansion(const Model& m);

// Bytes an expansion may need at its peak (terms x packed exponents and
// coefficients, times the intermediate products kept alive).
double expansion_memory_estimate(const Model& m);

// Throws LimitError naming the estimate and the flag when terms > max_terms.
void check_expansion_size(const Model& m, double max_terms);

// Exact expansion over Q of the given output entries (in that order).
std::vector<FmpqMpoly> expand(const PolyRing& R, const Model& m, const std::vector<Entry>& outputs);

// Expansion mod p (weights reduced mod p; throws DomainError if p divides a denominator).
std::vector<NmodMpoly> expand_mod(const ModPolyRing& R, const Model& m, const std::vector<Entry>& outputs);

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

}  // namespace netpoly
