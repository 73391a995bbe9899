// LV Lemma 6's grid sub-matrix: evaluated modulo a prime in which i and every
// sqrt(n_α) exist, its rank (a certified lower bound on the rank over C), and
// a numeric cross-check in complex doubles.
//
// Why the reduction is a certified lower bound. Write n_α = s_α^2 m_α with
// m_α squarefree, and let q_1..q_k be the primes dividing some m_α. The
// sub-matrix's entries lie in K = Q(i, sqrt(q_1), ..., sqrt(q_k)) (the real,
// positive roots): sqrt(n_α) = s_α prod_{q | m_α} sqrt(q). Since -1, q_1..q_k
// are independent modulo squares, [K : Q] = 2^(k+1) and
// Q[I, Y_1..Y_k] / (I^2 + 1, Y_j^2 - q_j) is K itself. So for a prime p = 1
// mod 4 in which every q_j is a square, any choice of roots ι^2 = -1,
// r_j^2 = q_j mod p is a ring homomorphism from K's p-integral elements onto
// F_p, and a minor that is nonzero mod p is nonzero in K: rank mod p <= the
// rank over C. Each sqrt(n_α) is taken as s_α prod r_j, never as an
// independent root of n_α (two independent roots could break a relation
// like sqrt(8) = 2 sqrt(2) that holds in K).
#include <Eigen/Core>
#include <complex>
#include <map>
#include <sstream>

#include <flint/fmpq_mat.h>

#include "netpoly/error.hpp"
#include "model/forward.hpp"
#include "model/gauss.hpp"
#include "netpoly/lv_witness.hpp"
#include "netpoly/rings.hpp"
#include "analysis/rank/singular_values.hpp"

namespace netpoly {
namespace {

struct Roots {
  ulong p = 0;
  std::vector<ulong> inv_sqrt;  // 1 / sqrt(n_α) mod p
  std::size_t primes = 0;
};

// The squarefree part's primes of each n_α, and s_α.
struct Split {
  std::vector<std::vector<Fmpz>> q;  // primes with odd exponent
  std::vector<Fmpz> s;
};

Split split_norms(const std::vector<Fmpz>& n) {
  Split r;
  for (const auto& x : n) {
    fmpz_factor_t f;
    fmpz_factor_init(f);
    fmpz_factor(f, x.get());
    std::vector<Fmpz> odd;
    Fmpz s(1), t;
    for (slong k = 0; k < f->num; ++k) {
      Fmpz q;
      fmpz_set(q.get(), f->p + k);
      if (f->exp[k] % 2) odd.push_back(q);
      fmpz_pow_ui(t.get(), q.get(), f->exp[k] / 2);
      fmpz_mul(s.get(), s.get(), t.get());
    }
    fmpz_factor_clear(f);
    r.q.push_back(std::move(odd));
    r.s.push_back(std::move(s));
  }
  return r;
}

// The first prime p = 1 mod 4 above `from` in which every q is a nonzero
// square, with the inverse roots of the n_α.
Roots choose_roots(const std::vector<Fmpz>& n, std::size_t tokens, ulong from) {
  const Split sp = split_norms(n);
  std::map<std::string, Fmpz> all;
  for (const auto& qs : sp.q)
    for (const auto& q : qs) all.emplace(q.str(), q);
  for (ulong p = n_nextprime(from, 1);; p = n_nextprime(p, 1)) {
    if (p % 4 != 1 || tokens % p == 0) continue;
    nmod_t mod;
    nmod_init(&mod, p);
    std::map<std::string, ulong> root;
    bool ok = true;
    for (const auto& [key, q] : all) {
      const ulong qp = fmpz_fdiv_ui(q.get(), p);
      if (qp == 0 || n_jacobi(static_cast<mp_limb_signed_t>(qp), p) != 1) {
        ok = false;
        break;
      }
      root[key] = n_sqrtmod(qp, p);
    }
    if (!ok) continue;
    Roots r;
    r.p = p;
    r.primes = all.size();
    for (std::size_t a = 0; a < n.size() && ok; ++a) {
      ulong v = fmpz_fdiv_ui(sp.s[a].get(), p);
      for (const auto& q : sp.q[a]) v = nmod_mul(v, root.at(q.str()), mod);
      if (v == 0) ok = false;
      else r.inv_sqrt.push_back(n_invmod(v, p));
    }
    if (ok) return r;
  }
}

ulong power_mod(ulong b, std::size_t e, nmod_t mod) { return n_powmod2_ui_preinv(b, e, mod.n, mod.ninv); }

// The input of sub-matrix entry (α, β): token 0 = template α, token N/2 =
// template R + β, every other token template 2R.
template <class F>
auto witness_input(const LvWitnessShape& s, const LvWitnessDims& D, std::size_t a, std::size_t b, F&& value) {
  std::vector<decltype(value(0, 0))> X;
  X.reserve(s.tokens * s.width);
  for (std::size_t t = 0; t < s.tokens; ++t) {
    const std::size_t tmpl = t == 0 ? a : t == s.tokens / 2 ? D.R + b : 2 * D.R;
    for (std::size_t k = 0; k < s.width; ++k) X.push_back(value(tmpl, k));
  }
  return X;
}

}  // namespace

namespace {

// Rational V: the sub-matrix over Q(i), its rank exactly (half the rank of
// [[A, -B], [B, A]] over Q) and eq. (28) exactly.
void exact_rank(const LvWitnessShape& s, const LvWitnessDims& D, const LvTemplates& T, LvWitnessRank& out) {
  const std::size_t R = D.R;
  const auto E = lv_witness_entries(s);
  const auto& c = E[0];
  bool ok = !c.first.is_zero() || !c.second.is_zero();
  for (std::size_t a = 0; a < R && ok; ++a)
    for (std::size_t b = 0; b < R && ok; ++b) {
      Fmpq g, t, gl(1);
      for (std::size_t r = 0; r < D.dprime; ++r) {
        fmpq_mul(t.get(), T.vnum[a][r].get(), T.vnum[b][r].get());
        fmpq_add(g.get(), g.get(), t.get());
      }
      fmpq_pow_si(gl.get(), g.get(), static_cast<slong>(D.lambda));
      Fmpq re, im;
      fmpq_mul(re.get(), c.first.get(), gl.get());
      fmpq_mul(im.get(), c.second.get(), gl.get());
      ok = re == E[a * R + b].first && im == E[a * R + b].second;
    }
  out.eq28_holds = ok;
  fmpq_mat_t A;
  const slong n = static_cast<slong>(R);
  fmpq_mat_init(A, 2 * n, 2 * n);
  for (slong a = 0; a < n; ++a)
    for (slong b = 0; b < n; ++b) {
      const auto& z = E[static_cast<std::size_t>(a * n + b)];
      fmpq_set(fmpq_mat_entry(A, a, b), z.first.get());
      fmpq_set(fmpq_mat_entry(A, n + a, n + b), z.first.get());
      fmpq_set(fmpq_mat_entry(A, n + a, b), z.second.get());
      fmpq_neg(fmpq_mat_entry(A, a, n + b), z.second.get());
    }
  fmpq_mat_t Rr;
  fmpq_mat_init(Rr, 2 * n, 2 * n);
  const slong rr = fmpq_mat_rref(Rr, A);  // FLINT 2.9 has no fmpq_mat_rank
  fmpq_mat_clear(Rr);
  fmpq_mat_clear(A);
  if (rr % 2) throw InternalError("lv-witness: a realified Q(i) matrix of odd rank");
  out.rank_modp = static_cast<std::size_t>(rr / 2);
  out.exact = true;
}

// The paper's V: modulo a prime in which i and the roots exist.
void modp_rank(const LvWitnessShape& s, const LvWitnessDims& D, const Model& m, const LvTemplates& T,
               LvWitnessRank& out) {
  const std::size_t R = D.R;
  const Roots roots = choose_roots(T.n, s.tokens, UWORD(1) << 62);
  out.prime = roots.p;
  out.square_roots = roots.primes;
  const ModpRing Rp = ModpRing::gaussian(roots.p);
  const auto netp = prepare(Rp, m);
  auto xp = [&](std::size_t t, std::size_t k) {
    const auto& e = T.x[t][k];
    const ulong v = Rp.scalar(e.num);
    return e.row < 0 ? v : nmod_mul(v, roots.inv_sqrt[static_cast<std::size_t>(e.row)], Rp.mod);
  };
  NmodMat E(static_cast<slong>(R), static_cast<slong>(R), roots.p);
  for (std::size_t a = 0; a < R; ++a)
    for (std::size_t b = 0; b < R; ++b)
      E.at(static_cast<slong>(a), static_cast<slong>(b)) = forward(Rp, netp, witness_input(s, D, a, b, xp))[0];
  // eq. (28) mod p: E = Const * (V V^T)^{⊙ λ}, Const = E[0][0] (G[0][0] = 1: unit rows).
  auto V = [&](std::size_t a, std::size_t r) { return nmod_mul(Rp.scalar(T.vnum[a][r]), roots.inv_sqrt[a], Rp.mod); };
  bool ok = E.at(0, 0) != 0;
  for (std::size_t a = 0; a < R && ok; ++a)
    for (std::size_t b = 0; b < R && ok; ++b) {
      ulong g = 0;
      for (std::size_t r = 0; r < D.dprime; ++r) g = nmod_add(g, nmod_mul(V(a, r), V(b, r), Rp.mod), Rp.mod);
      ok = nmod_mul(E.at(0, 0), power_mod(g, D.lambda, Rp.mod), Rp.mod) == E.at(static_cast<slong>(a), static_cast<slong>(b));
    }
  out.eq28_holds = ok;
  out.rank_modp = static_cast<std::size_t>(nmod_mat_rank(E.get()));
}

}  // namespace

std::vector<std::pair<Fmpq, Fmpq>> lv_witness_entries(const LvWitnessShape& s) {
  if (!s.rational_v) throw InputError("lv-witness: exact entries need a rational V (rational_v)");
  const LvWitnessDims D = lv_witness_dims(s);
  const Model m = make_lv_witness(s);
  const LvTemplates T = lv_templates(s);
  const GaussRing<RationalRing> RQ{RationalRing{}};
  const auto net = prepare(RQ, m);
  auto xq = [&](std::size_t t, std::size_t k) { return GaussRing<RationalRing>::Elem{T.x[t][k].num, Fmpq()}; };
  std::vector<std::pair<Fmpq, Fmpq>> E;
  for (std::size_t a = 0; a < D.R; ++a)
    for (std::size_t b = 0; b < D.R; ++b) {
      auto z = forward(RQ, net, witness_input(s, D, a, b, xq))[0];
      E.emplace_back(std::move(z.re), std::move(z.im));
    }
  return E;
}

LvWitnessRank lv_witness_rank(const LvWitnessShape& s) {
  LvWitnessRank out;
  const LvWitnessDims D = lv_witness_dims(s);
  out.dims = D;
  const Model m = make_lv_witness(s);
  const LvTemplates T = lv_templates(s);
  const std::size_t R = D.R;
  if (s.rational_v) exact_rank(s, D, T, out);
  else modp_rank(s, D, m, T, out);

  // Numeric cross-check in complex doubles.
  const GaussRing<DoubleRing> RC{DoubleRing{}};
  const auto netc = prepare(RC, m);
  std::vector<double> inv_norm;
  for (const auto& n : T.n) inv_norm.push_back(1.0 / std::sqrt(fmpz_get_d(n.get())));
  auto xc = [&](std::size_t t, std::size_t k) {
    const auto& e = T.x[t][k];
    const double v = e.num.to_double();
    return GaussRing<DoubleRing>::Elem{e.row < 0 ? v : v * inv_norm[static_cast<std::size_t>(e.row)], 0.0};
  };
  Eigen::MatrixXcd M(static_cast<Eigen::Index>(R), static_cast<Eigen::Index>(R));
  for (std::size_t a = 0; a < R; ++a)
    for (std::size_t b = 0; b < R; ++b) {
      const auto z = forward(RC, netc, witness_input(s, D, a, b, xc))[0];
      M(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) = {z.re, z.im};
    }
  const Eigen::VectorXd sv = singular_values(M);
  out.smax = sv.size() ? sv(0) : 0;
  out.smin = sv.size() ? sv(sv.size() - 1) : 0;
  for (Eigen::Index k = 0; k < sv.size(); ++k) out.numeric_rank += sv(k) > out.smax * static_cast<double>(R) * 1e-12;
  return out;
}

std::string LvWitnessRank::how() const {
  std::ostringstream o;
  o.precision(3);
  o << "rank " << rank_modp << " of " << dims.R;
  if (exact) o << ", exact over Q(i) (rational V, realified)";
  else
    o << " mod p = " << prime << " (i and sqrt of " << square_roots << " primes mod p; certified lower bound"
      << (rank_modp == dims.R ? ", full: exact" : "") << ")";
  o << "; eq. (28) " << (eq28_holds ? "holds" : "fails") << (exact ? "" : " mod p") << "; numeric singular values "
    << smax << " .. " << smin << " (numeric rank " << numeric_rank << ")";
  return o.str();
}

}  // namespace netpoly
