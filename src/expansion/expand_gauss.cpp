// Expansion over Q(i): models with Gaussian weights (gauss.hpp). The forward
// pass runs over GaussRing<PolyRing>, giving each output as re + i im; the
// writer merges the two parts term by term into Gaussian coefficients.
#include <functional>

#include "netpoly/expand.hpp"
#include "model/gauss.hpp"

namespace netpoly {

void write_poly_terms(std::ostream& os, slong len, slong nv, std::size_t width, PolyFormat f,
                      const std::function<void(slong, ulong*, std::string&)>& get);

std::vector<GaussPoly> expand_gauss(const PolyRing& R, const Model& m, const std::vector<Entry>& outputs) {
  GaussRing<PolyRing> G(R);
  std::vector<FmpqMpoly> x;
  for (std::size_t v = 0; v < m.num_inputs(); ++v) x.push_back(R.gen(static_cast<slong>(v)));
  const std::size_t dout = m.output_width();
  Need need(m.tokens * dout, 0);
  for (const auto& e : outputs) need[e.token * dout + e.channel] = 1;
  auto Y = forward(G, prepare(G, m), real_inputs(G, std::move(x)), need);
  std::vector<GaussPoly> r;
  for (const auto& e : outputs) {
    auto& y = Y[e.token * dout + e.channel];
    r.push_back({y.re, y.im});
  }
  return r;
}

// Coefficient 1 each (positive: no cancellation where a and b share a monomial).
FmpqMpoly monomial_union(const FmpqMpoly& a, const FmpqMpoly& b) {
  FmpqMpoly u(a.ctx());
  std::vector<ulong> e(static_cast<std::size_t>(a.ctx()->nvars()));
  for (const FmpqMpoly* q : {&a, &b})
    for (slong t = 0; t < q->length(); ++t) {
      fmpq_mpoly_get_term_exp_ui(e.data(), q->get(), t, q->c());
      fmpq_mpoly_push_term_ui_ui(u.get(), 1, e.data(), u.c());
    }
  fmpq_mpoly_sort_terms(u.get(), u.c());
  fmpq_mpoly_combine_like_terms(u.get(), u.c());
  return u;
}

namespace {

std::string rational_for(const Fmpq& q, PolyFormat f) {
  const std::string s = q.str();
  const auto slash = s.find('/');
  if (slash == std::string::npos) return s;
  if (f == PolyFormat::sympy) return "Rational(" + s.substr(0, slash) + ", " + s.substr(slash + 1) + ")";
  if (f == PolyFormat::latex) {
    const bool neg = s[0] == '-';
    return std::string(neg ? "-" : "") + "\\frac{" + s.substr(neg, slash - neg) + "}{" + s.substr(slash + 1) + "}";
  }
  return s;
}

}  // namespace

// The coefficient a + bi as the format writes it.
std::string gauss_coeff_text(const Fmpq& re, const Fmpq& im, PolyFormat f) {
  if (im.is_zero()) return re.str();
  if (f == PolyFormat::json || f == PolyFormat::text) {
    const std::string t = gaussian_text(re, im);
    return (f == PolyFormat::text && !(re.is_zero() && (im == Fmpq(1) || im == Fmpq(-1)))) ? "(" + t + ")" : t;
  }
  const std::string unit = f == PolyFormat::sympy ? "I" : "i";
  const std::string times = f == PolyFormat::latex ? "" : "*";
  Fmpq b = im;
  const bool neg = fmpq_sgn(b.get()) < 0;
  if (neg) fmpq_neg(b.get(), b.get());
  const std::string bpart = b == Fmpq(1) ? unit : rational_for(b, f) + times + unit;
  if (re.is_zero()) return (neg ? "-" : "") + (b == Fmpq(1) ? unit : "(" + bpart + ")");
  return "(" + rational_for(re, f) + (neg ? " - " : " + ") + bpart + ")";
}

PolyStats poly_stats(const GaussPoly& p, std::size_t tokens, std::size_t width) {
  PolyStats s = poly_stats(monomial_union(p.re, p.im), tokens, width);
  s.height_bits = std::max(poly_stats(p.re, tokens, width).height_bits, poly_stats(p.im, tokens, width).height_bits);
  return s;
}

void write_poly(std::ostream& os, const GaussPoly& p, std::size_t width, PolyFormat f) {
  check_exponents_fit(p.re, "writing the polynomial");
  check_exponents_fit(p.im, "writing the polynomial");
  const FmpqMpoly u = monomial_union(p.re, p.im);
  Fmpq a, b;
  write_poly_terms(os, u.length(), u.ctx()->nvars(), width, f, [&](slong t, ulong* e, std::string& s) {
    fmpq_mpoly_get_term_exp_ui(e, u.get(), t, u.c());
    fmpq_mpoly_get_coeff_fmpq_ui(a.get(), p.re.get(), e, p.re.c());
    fmpq_mpoly_get_coeff_fmpq_ui(b.get(), p.im.get(), e, p.im.c());
    s = gauss_coeff_text(a, b, f);
  });
}

}  // namespace netpoly
