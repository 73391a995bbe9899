// An expanded polynomial's statistics and its output formats (text, JSON,
// SymPy, Singular, LaTeX: netpoly/expand.hpp).
#include <algorithm>
#include <cstdio>
#include <ostream>

#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "runtime/number_text.hpp"

namespace netpoly {

namespace {

template <class GetExp>
void token_degrees(PolyStats& s, slong len, std::size_t tokens, std::size_t width, GetExp get_exp) {
  s.token_degree.assign(tokens, 0);
  std::vector<ulong> e(tokens * width);
  for (slong t = 0; t < len; ++t) {
    get_exp(e.data(), t);
    slong tot = 0;
    for (std::size_t i = 0; i < tokens; ++i) {
      slong di = 0;
      for (std::size_t c = 0; c < width; ++c) di += static_cast<slong>(e[i * width + c]);
      s.token_degree[i] = std::max(s.token_degree[i], di);
      tot += di;
    }
    s.degree = std::max(s.degree, tot);
  }
}

}  // namespace

PolyStats poly_stats(const FmpqMpoly& p, std::size_t tokens, std::size_t width) {
  check_exponents_fit(p, "polynomial statistics");
  PolyStats s;
  s.terms = p.length();
  token_degrees(s, s.terms, tokens, width,
                [&](ulong* e, slong t) { fmpq_mpoly_get_term_exp_ui(e, p.get(), t, p.c()); });
  // p = content * zpoly, so over the common denominator the numerators are
  // num(content) * zpoly's coefficients; the largest has bits(num * max|z|)
  // (adding the two bit counts would overstate it by up to one bit).
  const fmpz_mpoly_struct* z = p.get()->zpoly;
  Fmpz big;
  for (slong t = 0; t < z->length; ++t)
    if (fmpz_cmpabs(z->coeffs + t, big.get()) > 0) fmpz_abs(big.get(), z->coeffs + t);
  fmpz_mul(big.get(), big.get(), fmpq_numref(p.get()->content));
  s.height_bits = fmpz_bits(big.get());
  return s;
}

PolyStats poly_stats(const NmodMpoly& p, std::size_t tokens, std::size_t width) {
  check_exponents_fit(p, "polynomial statistics");
  PolyStats s;
  s.terms = p.length();
  token_degrees(s, s.terms, tokens, width,
                [&](ulong* e, slong t) { nmod_mpoly_get_term_exp_ui(e, p.get(), t, p.c()); });
  s.height_bits = s.terms ? FLINT_BIT_COUNT(p.ctx()->modulus() - 1) : 0;
  return s;
}

PolyFormat parse_poly_format(const std::string& s) {
  if (s == "text") return PolyFormat::text;
  if (s == "json") return PolyFormat::json;
  if (s == "sympy") return PolyFormat::sympy;
  if (s == "singular") return PolyFormat::singular;
  if (s == "latex") return PolyFormat::latex;
  throw InputError("--format: expected text, json, sympy, singular or latex, got \"" + s + "\"");
}

namespace {

// Writes one term given its coefficient as a decimal string ("-3", "5/2").
void write_term(std::ostream& os, bool first, std::string coeff, const ulong* e, slong nv, std::size_t width,
                PolyFormat f) {
  bool neg = !coeff.empty() && coeff[0] == '-';
  if (neg) coeff.erase(0, 1);
  if (f == PolyFormat::json) {
    os << (first ? "" : ",") << "[\"" << (neg ? "-" : "") << coeff << "\",[";
    for (slong v = 0; v < nv; ++v) os << (v ? "," : "") << e[v];
    os << "]]";
    return;
  }
  if (first) os << (neg ? "-" : "");
  else os << (neg ? " - " : " + ");
  bool any_var = false;
  for (slong v = 0; v < nv; ++v) any_var = any_var || e[v];
  bool unit = coeff == "1" && any_var;
  const std::string mul = f == PolyFormat::latex ? " " : "*";
  if (!unit) {
    auto slash = coeff.find('/');
    if (coeff[0] == '(')  // a Gaussian coefficient, written for the format already
      os << coeff;
    else if (f == PolyFormat::latex && slash != std::string::npos)
      os << "\\frac{" << coeff.substr(0, slash) << "}{" << coeff.substr(slash + 1) << "}";
    else if (f == PolyFormat::sympy && slash != std::string::npos)
      os << "Rational(" << coeff.substr(0, slash) << ", " << coeff.substr(slash + 1) << ")";
    else
      os << coeff;
  }
  bool need_sep = !unit;
  for (slong v = 0; v < nv; ++v) {
    if (!e[v]) continue;
    if (need_sep) os << mul;
    need_sep = true;
    std::size_t i = static_cast<std::size_t>(v) / width, c = static_cast<std::size_t>(v) % width;
    if (f == PolyFormat::latex) {
      os << "x_{" << i << "," << c << "}";
      if (e[v] > 1) os << "^{" << e[v] << "}";
    } else {
      os << "x" << i << "_" << c;
      if (e[v] > 1) os << (f == PolyFormat::sympy ? "**" : "^") << e[v];
    }
  }
}

template <class GetTerm>
void write_terms(std::ostream& os, slong len, slong nv, std::size_t width, PolyFormat f, GetTerm get) {
  if (f == PolyFormat::json) os << "[";
  if (len == 0 && f != PolyFormat::json) os << "0";
  std::vector<ulong> e(nv);
  std::string coeff;
  for (slong t = 0; t < len; ++t) {
    get(t, e.data(), coeff);
    write_term(os, t == 0, coeff, e.data(), nv, width, f);
  }
  if (f == PolyFormat::json) os << "]";
}

}  // namespace

void write_poly(std::ostream& os, const FmpqMpoly& p, std::size_t width, PolyFormat f) {
  check_exponents_fit(p, "writing the polynomial");
  Fmpq c;
  write_terms(os, p.length(), p.ctx()->nvars(), width, f, [&](slong t, ulong* e, std::string& s) {
    fmpq_mpoly_get_term_coeff_fmpq(c.get(), p.get(), t, p.c());
    fmpq_mpoly_get_term_exp_ui(e, p.get(), t, p.c());
    s = c.str();
  });
}

void write_poly_terms(std::ostream& os, slong len, slong nv, std::size_t width, PolyFormat f,
                      const std::function<void(slong, ulong*, std::string&)>& get) {
  write_terms(os, len, nv, width, f, get);
}

void write_poly(std::ostream& os, const NmodMpoly& p, std::size_t width, PolyFormat f) {
  check_exponents_fit(p, "writing the polynomial");
  write_terms(os, p.length(), p.ctx()->nvars(), width, f, [&](slong t, ulong* e, std::string& s) {
    s = std::to_string(nmod_mpoly_get_term_coeff_ui(p.get(), t, p.c()));
    nmod_mpoly_get_term_exp_ui(e, p.get(), t, p.c());
  });
}

}  // namespace netpoly
