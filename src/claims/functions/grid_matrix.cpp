// AO's ε-separation rank through the grid matrix (AO eqs. (8)-(12), (15)):
// grid_matrix(T; PART; ...) is the matrix [y(a_i, b_j)] whose rank grid(...)
// takes (LV Claim 1), exactly; eps_rank(M, eps, norm = ...) brackets its
// ε-rank, the least rank of a matrix within ε of M in AO's metrics on the
// grid. The ends come from exact counts of the eigenvalues of the Gram
// matrix above rational thresholds (its characteristic polynomial, FLINT,
// and Descartes' rule of signs, exact for a polynomial with real roots);
// the estimate between them from the singular values in doubles (Eigen).
// docs/math.md, "The ε-separation rank", has the definitions and proofs.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "analysis/engines/grid.hpp"
#include "analysis/rank/singular_values.hpp"
#include "claims/eval/work_limits.hpp"
#include "function.hpp"
#include "netpoly/error.hpp"
#include "domains/flint_linalg.hpp"
#include "runtime/number_text.hpp"

namespace netpoly::claims_detail {
namespace {

constexpr std::size_t kMaxEntries = 1u << 18;  // grid_matrix's entries (each one a claim value)
constexpr slong kMaxExactSide = 256;           // eps_rank's exact counts up to a 256 x 256 Gram matrix
constexpr double kCountSeconds = 3e-11;        // exact_count_seconds's constant (measured)

Value grid_matrix_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  Value target = a.arg(0);
  const NetVal& n = need_net(target, a.pos[0]->loc, "grid_matrix(...)");
  ev.drawn_weights(e.loc, "grid_matrix(...)");
  if (n.model.gaussian()) fail(e.loc, "grid_matrix(...): a network with Gaussian weights (its entries are complex)");
  const Entry en = target.kind == Value::Kind::output ? target.entry : default_output(n.model);
  const PartVal P = ev.partition(e, target, env);
  const SepOptions so = ev.sep_options(e, env);
  methods::Grid G;
  try {
    G = methods::make_grid(n.model, P.P, so);
  } catch (const InputError& x) {
    fail(e.loc, std::string("grid_matrix(...): ") + x.what());
  }
  const std::size_t rows = G.rows.size(), cols = G.cols.size();
  if (rows * cols > kMaxEntries)
    fail(e.loc, "grid_matrix(...): " + std::to_string(rows) + " x " + std::to_string(cols) + " entries (at most " +
                    std::to_string(kMaxEntries) + "); lower templates");
  // Each entry is an exact forward pass: held to --budget (this call's).
  const WorkClock clock(ev, e);
  std::vector<Fmpq> E;
  try {
    E = methods::eval_grid(RationalRing{}, n.model, en, G, methods::deadline_after(clock.left()));
  } catch (const methods::OverBudget&) {
    clock.check();
    limit_reached(e, "the grid's exact evaluations stopped at " + budget_text(ev.defaults()) + " (after " +
                         fmt_g(clock.seconds()) + " s)",
                  "raise --budget");
  }
  Matrix M(rows);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) M[i].push_back(Value::number(Quantity::exact(XRat(E[i * cols + j]))));
  return matrix_value(M);
}

// The eigenvalues of a symmetric rational matrix, counted exactly: its
// characteristic polynomial p has real roots only, so the number of roots of
// p(x + t) above 0 (eigenvalues above t) is its number of sign changes.
class EigenCount {
 public:
  explicit EigenCount(const FmpqMat& gram) { fmpq_mat_charpoly(p_.get(), gram.get()); }
  std::size_t above(const Fmpq& t) const {
    FmpqPoly shift, q;
    fmpq_poly_set_coeff_fmpq(shift.get(), 0, t.get());
    fmpq_poly_set_coeff_si(shift.get(), 1, 1);
    fmpq_poly_compose(q.get(), p_.get(), shift.get());
    std::size_t changes = 0;
    int last = 0;
    Fmpq c;
    for (slong k = 0; k < q.length(); ++k) {
      fmpq_poly_get_coeff_fmpq(c.get(), q.get(), k);
      const int s = fmpq_sgn(c.get());
      if (s == 0) continue;
      changes += last != 0 && s != last;
      last = s;
    }
    return changes;
  }

 private:
  FmpqPoly p_;
};

// M^T M or M M^T, whichever is smaller (the same non-zero eigenvalues, the squared singular values).
FmpqMat gram(const FmpqMat& M) {
  const bool tall = M.rows() >= M.cols();
  FmpqMat T(M.cols(), M.rows());
  fmpq_mat_transpose(T.get(), M.get());
  FmpqMat G(tall ? M.cols() : M.rows(), tall ? M.cols() : M.rows());
  if (tall) fmpq_mat_mul(G.get(), T.get(), M.get());
  else fmpq_mat_mul(G.get(), M.get(), T.get());
  return G;
}

Fmpq qmul(const Fmpq& a, const Fmpq& b) {
  Fmpq r;
  fmpq_mul(r.get(), a.get(), b.get());
  return r;
}

// The least r <= k with count.above(tau / (k - r)) <= r (r = k always qualifies):
// then the k - r eigenvalues after the r-th are each <= tau / (k - r), so their sum is <= tau.
std::size_t least_tail_rank(const EigenCount& count, const Fmpq& tau, std::size_t k) {
  std::size_t lo = 0, hi = k;  // the condition is monotone in r
  while (lo < hi) {
    const std::size_t r = (lo + hi) / 2;
    Fmpq t;
    fmpq_div_fmpz(t.get(), tau.get(), Fmpz(static_cast<slong>(k - r)).get());
    if (count.above(t) <= r) hi = r;
    else lo = r + 1;
  }
  return lo;
}

// Seconds the exact counts are expected to take: the Gram matrix's
// characteristic polynomial dominates (a k x k matrix, k the smaller side, of
// entries of about w = 2 b / 64 + 1 words, b the bits of M's rows cleared of
// their denominators). Measured on FLINT 2.9 for grid matrices of k = 64 to
// 256 and w = 7 to 19 (from 0.15 s to 226 s): about 3e-11 k^4 w^2.6 s, within
// a factor 2.6 (higher only where it is below a second); the Taylor shifts
// of the counts cost little beside it.
double exact_count_seconds(const FmpqMat& M) {
  FmpzMat z(M.rows(), M.cols());
  fmpq_mat_get_fmpz_mat_rowwise(z.get(), nullptr, M.get());
  double b = 1;
  for (slong i = 0; i < z.rows(); ++i)
    for (slong j = 0; j < z.cols(); ++j) b = std::max(b, static_cast<double>(fmpz_bits(z.at(i, j))));
  const double k = static_cast<double>(std::min(M.rows(), M.cols())),
               big = static_cast<double>(std::max(M.rows(), M.cols()));
  const double words = (2 * b + std::log2(big + 1)) / 64 + 1;
  return kCountSeconds * k * k * k * k * std::pow(words, 2.6);
}

Value eps_rank_fn(Evaluator& ev, const Expr& e, const Env& env) {
  const CallArgs a(ev, e, env);
  const Matrix A = need_matrix(a.arg(0), a.pos[0]->loc, "eps_rank");
  const Quantity eq = a.num(1);
  if (!eq.is_exact() || eq.cert.lo.sign() <= 0) fail(a.pos[1]->loc, "eps_rank: eps must be an exact number > 0");
  const Fmpq eps = eq.cert.lo.value();
  const std::string norm = word(named(e, "norm"), "max");
  const slong m = static_cast<slong>(A.size()), n = static_cast<slong>(A[0].size());
  const std::size_t k = static_cast<std::size_t>(std::min(m, n));
  FmpqMat M(m, n);
  Eigen::MatrixXd D(m, n);
  for (slong i = 0; i < m; ++i)
    for (slong j = 0; j < n; ++j) {
      const Value& x = A[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      if (x.kind != Value::Kind::number || !x.num.is_exact())
        fail(a.pos[0]->loc, "eps_rank: the matrix's entries must be exact numbers");
      fmpq_set(M.at(i, j), x.num.cert.lo.value().get());
      D(i, j) = x.num.cert.lo.value().to_double();
    }
  const Fmpq mn(m * n);
  // The estimate (mean_square only): the same rule on the singular values in
  // doubles, about 1e-8 m n k s; none beyond --budget.
  const double svd_secs = 1e-8 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const bool svd = norm == "mean_square" && svd_secs <= ev.defaults().budget;
  if (norm == "mean_square" && !svd)
    ev.notes.push_back(call_place(e) + ": beyond " + budget_text(ev.defaults()) + ", the singular values in doubles (" +
                       "estimated at " + fmt_g(svd_secs) + " s) were not computed: no numeric estimate");
  std::size_t est = 0;
  if (svd) {  // the least r with sum_{i > r} s_i^2 <= eps m n
    const Eigen::VectorXd s = singular_values(D);
    const double e_d = eps.to_double(), mn_d = static_cast<double>(m * n);
    double tail = s.squaredNorm();
    while (est < k && tail > e_d * mn_d) tail -= s(static_cast<Eigen::Index>(est)) * s(static_cast<Eigen::Index>(est++));
  }
  // The certified ends, from exact counts (squared thresholds: rational).
  XRat lo(0), hi(static_cast<slong>(k));
  bool counted = static_cast<slong>(k) <= kMaxExactSide;
  const double count_secs = counted ? exact_count_seconds(M) : 0;
  if (counted && count_secs > ev.defaults().budget) {
    counted = false;
    ev.notes.push_back(call_place(e) + ": beyond " + budget_text(ev.defaults()) +
                       ", the exact eigenvalue counts of a " + std::to_string(m) + " x " + std::to_string(n) +
                       " matrix (estimated at " + fmt_g(count_secs) +
                       " s) were not computed: the bracket [0, " + std::to_string(k) + "]" +
                       (svd ? " and the numeric estimate" : "") + " (raise --budget)");
  } else if (counted) {
    const EigenCount count(gram(M));
    const Fmpq e2 = qmul(eps, eps);
    if (norm == "max") {  // [#{s_i^2 > eps^2 m n}, #{s_i^2 > eps^2}]
      lo = XRat(static_cast<slong>(count.above(qmul(e2, mn))));
      hi = XRat(static_cast<slong>(count.above(e2)));
    } else if (norm == "mean_square") {  // tail sums <= tau = eps m n
      const Fmpq tau = qmul(eps, mn);
      lo = XRat(static_cast<slong>(count.above(tau)));
      hi = XRat(static_cast<slong>(least_tail_rank(count, tau, k)));
    } else {  // mean_abs: ||D||_F <= ||D||_1 <= sqrt(m n) ||D||_F
      lo = XRat(static_cast<slong>(count.above(qmul(e2, qmul(mn, mn)))));
      hi = XRat(static_cast<slong>(least_tail_rank(count, qmul(e2, mn), k)));
    }
  } else if (static_cast<slong>(k) > kMaxExactSide) {
    ev.notes.push_back("eps_rank (line " + std::to_string(e.loc.line) + "): a " + std::to_string(m) + " x " +
                       std::to_string(n) + " matrix is beyond the exact eigenvalue counts (at most " +
                       std::to_string(kMaxExactSide) + " on the smaller side): only the numeric estimate");
  }
  Quantity q = Quantity::bracket(lo, hi);
  if (svd && !q.is_exact()) {
    const XRat x(static_cast<slong>(est));
    if (lo <= x && x <= hi) {
      q.likely = Interval::point(x);
      q.trust = Trust::numeric;
    }
  }
  ev.record(e, q.status());
  return Value::number(q);
}

}  // namespace

std::vector<FunctionInfo> grid_functions() {
  using P = FunctionInfo::Part;
  return {
      {"grid_matrix", 1, 1, P::required, {"templates", "seed"}, {},
       "the grid matrix [y(a_i, b_j)] that grid(...) takes the rank of (LV Claim 1), exactly: "
       "grid_matrix(net; PART; templates = M, seed = s)",
       grid_matrix_fn},
      {"eps_rank", 2, 2, P::none, {"norm"}, {"norm"},
       "AO's ε-rank of a matrix of exact numbers: norm = max (sup, the default), mean_square or mean_abs over the "
       "entries; certified ends from exact eigenvalue counts, a numeric estimate between them",
       eps_rank_fn},
  };
}

}  // namespace netpoly::claims_detail
