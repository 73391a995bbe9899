// Polynomials and variables as the claim language prints them (values,
// traces, counterexample files): real coefficients, or Gaussian ones as
// `expand` writes them.
#include <functional>
#include <sstream>

#include "claims/eval/claim_eval.hpp"
#include "netpoly/expand.hpp"

namespace netpoly::claims_detail {

std::string var_label(std::size_t k, std::size_t width, bool flat) {
  if (flat) return "x" + std::to_string(k);
  return "x" + std::to_string(k / width) + "_" + std::to_string(k % width);
}

namespace {

// The terms of a polynomial in n variables as text; coeff(t, exponents)
// gives term t's exponents and its coefficient's text ("-3", "5/2", "(1-2i)").
std::string terms_text(slong n, slong len, std::size_t width, bool flat, std::size_t max_chars,
                       const std::function<std::string(slong, ulong*)>& coeff) {
  std::ostringstream os;
  if (len == 0) return "0";
  std::vector<ulong> e(static_cast<std::size_t>(n));
  for (slong t = 0; t < len; ++t) {
    std::string cs = coeff(t, e.data());
    const bool neg = cs[0] == '-';
    if (neg) cs.erase(0, 1);
    os << (t == 0 ? (neg ? "-" : "") : (neg ? " - " : " + "));
    bool any = false;
    for (auto x : e) any = any || x;
    bool need = true;
    if (!(cs == "1" && any)) {
      os << cs;
    } else {
      need = false;
    }
    for (slong v = 0; v < n; ++v) {
      if (!e[static_cast<std::size_t>(v)]) continue;
      if (need) os << "*";
      need = true;
      os << var_label(static_cast<std::size_t>(v), width, flat);
      if (e[static_cast<std::size_t>(v)] > 1) os << "^" << e[static_cast<std::size_t>(v)];
    }
    if (max_chars && static_cast<std::size_t>(os.tellp()) > max_chars && t + 1 < len) {
      os << " + ...";
      break;
    }
  }
  return os.str();
}

}  // namespace

std::string poly_text(const FmpqMpoly& p, std::size_t width, bool flat, std::size_t max_chars) {
  check_exponents_fit(p, "printing the polynomial");
  Fmpq c;
  return terms_text(p.ctx()->nvars(), p.length(), width, flat, max_chars, [&](slong t, ulong* e) {
    fmpq_mpoly_get_term_coeff_fmpq(c.get(), p.get(), t, p.c());
    fmpq_mpoly_get_term_exp_ui(e, p.get(), t, p.c());
    return c.str();
  });
}

std::string gauss_poly_text(const PolyVal& p, std::size_t max_chars) {
  check_exponents_fit(p.p, "printing the polynomial");
  check_exponents_fit(*p.im, "printing the polynomial");
  const FmpqMpoly u = monomial_union(p.p, *p.im);
  Fmpq a, b;
  return terms_text(u.ctx()->nvars(), u.length(), p.width, p.flat, max_chars, [&](slong t, ulong* e) {
    fmpq_mpoly_get_term_exp_ui(e, u.get(), t, u.c());
    fmpq_mpoly_get_coeff_fmpq_ui(a.get(), p.p.get(), e, p.p.c());
    fmpq_mpoly_get_coeff_fmpq_ui(b.get(), p.im->get(), e, p.im->c());
    return gauss_coeff_text(a, b, PolyFormat::text);
  });
}

}  // namespace netpoly::claims_detail
