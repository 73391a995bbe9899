// LV Lemma 6's witness: the weights and the template vectors (the repaired
// reading of App. B.3 is written out in lv_witness.hpp).
#include "netpoly/lv_witness.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "netpoly/bounds.hpp"
#include "netpoly/error.hpp"
#include "runtime/random.hpp"

namespace netpoly {
namespace {

void require_witness(bool ok, const std::string& what) {
  if (!ok) throw InputError("make lv-witness: " + what);
}

// The compositions of `total` into `parts` non-negative parts, lexicographic.
void compositions(std::size_t parts, std::size_t total, std::vector<std::size_t>& cur,
                  std::vector<std::vector<std::size_t>>& out) {
  if (cur.size() + 1 == parts) {
    cur.push_back(total);
    out.push_back(cur);
    cur.pop_back();
    return;
  }
  for (std::size_t k = total + 1; k-- > 0;) {
    cur.push_back(k);
    compositions(parts, total - k, cur, out);
    cur.pop_back();
  }
}

// Real and imaginary parts of one layer's heads, built entry by entry.
struct Heads {
  std::vector<AttentionHead<Fmpq>> re, im;
  Heads(std::size_t H, std::size_t da, std::size_t d) {
    for (std::size_t h = 0; h < H; ++h) {
      AttentionHead<Fmpq> z;
      z.Q = z.K = z.V = Mat<Fmpq>(da, d);
      z.O = Mat<Fmpq>(d, da);
      re.push_back(z);
      im.push_back(z);
    }
  }
  void qk(std::size_t h, std::size_t r, std::size_t col) {
    re[h].Q(r, col) = Fmpq(1);
    re[h].K(r, col) = Fmpq(1);
  }
};

}  // namespace

LvWitnessDims lv_witness_dims(const LvWitnessShape& s) {
  require_witness(s.layers >= 2 && s.layers <= 6, "--layers must be in [2, 6] (the witness needs L >= 2)");
  require_witness(s.heads >= 1 && s.width >= 1 && s.width % s.heads == 0, "--heads must divide --width");
  LvWitnessDims d;
  d.da = s.width / s.heads;
  require_witness(d.da % 2 == 1 && d.da >= 3, "d_a = width / heads must be odd and at least 3 (Lemma 6 splits it into "
                                      "(d_a - 1)/2 + (d_a - 1)/2 + 1); got " + std::to_string(d.da));
  require_witness(s.tokens >= 2 && s.tokens % 2 == 0 && s.tokens <= 64, "--tokens must be even, in [2, 64] (a balanced "
                                                                 "partition with one token of the sub-matrix per side)");
  require_witness(s.omega >= 2 && s.omega <= 1000, "--omega must be in [2, 1000]");
  d.c = (d.da - 1) / 2;
  d.dprime = s.heads * d.c;
  d.lambda = 1;
  for (std::size_t l = 2; l < s.layers; ++l) d.lambda *= 3;
  const Fmpz R = multiset_coefficient(Fmpz(static_cast<slong>(d.dprime)), Fmpz(static_cast<slong>(d.lambda)));
  if (fmpz_cmp_ui(R.get(), 2000) > 0)
    throw LimitError("make lv-witness: the sub-matrix would have ((d' λ)) = " + R.str() +
                     " rows (d' = " + std::to_string(d.dprime) + ", λ = " + std::to_string(d.lambda) +
                     "); at most 2000 are built (R^2 forward passes)");
  d.R = fmpz_get_ui(R.get());
  return d;
}

Model make_lv_witness(const LvWitnessShape& s) {
  const LvWitnessDims D = lv_witness_dims(s);
  const std::size_t d = s.width, da = D.da, c = D.c, H = s.heads, L = s.layers;
  const Fmpq invN(1, s.tokens);
  Fmpq neg_invN;
  fmpq_neg(neg_invN.get(), invN.get());
  Model m;
  m.width = d;
  m.tokens = s.tokens;
  for (std::size_t l = 1; l <= L; ++l) {
    Heads x(H, da, d);
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t base = h * da, marker = base + da - 1;
      // Scores.
      if (l == 1) {
        x.qk(h, 0, da - 1);  // head 0's marker: every score is 1
      } else if (l == 2) {
        for (std::size_t a = 0; a < c; ++a) x.qk(h, a, base + a);  // the A part
      } else {
        for (std::size_t k = 0; k < d; ++k)
          if (k % da != da - 1) x.qk(h, 0, k);  // every non-marker coordinate
      }
      // Values and outputs.
      auto& V = x.re[h].V;
      auto& Vi = x.im[h].V;
      auto& O = x.re[h].O;
      if (l == L) {
        for (std::size_t a = 0; a < da; ++a) {
          if (s.printed_last) {
            Vi(a, da - 1) = Fmpq(1);  // as printed: i e_{d_a}, head 0's marker
            O(base + a, a) = Fmpq(1);
          } else {
            Vi(a, marker) = Fmpq(1);  // i e_marker(h)
            O(a, a) = Fmpq(1);        // every head into segment 0
          }
        }
        continue;
      }
      for (std::size_t a = 0; a < da; ++a) O(base + a, a) = Fmpq(1);
      if (l > 1) {
        for (std::size_t a = 0; a < da; ++a) V(a, base + a) = Fmpq(1);
        continue;
      }
      for (std::size_t a = 0; a < c; ++a) {
        V(a, base + a) = invN;  // (e_A + i e_B) / N
        Vi(a, base + c + a) = invN;
        V(c + a, base + a) = neg_invN;  // (e_marker - e_A - i e_B) / N
        Vi(c + a, base + c + a) = neg_invN;
        V(c + a, marker) = invN;
      }
      V(da - 1, marker) = invN;
    }
    Attention<Fmpq> re, im;
    re.heads = std::move(x.re);
    im.heads = std::move(x.im);
    m.layers.push_back({std::move(re), false});
    m.imag.push_back({std::move(im), false});
  }
  m.name = "lv-witness-L" + std::to_string(L) + "-d" + std::to_string(d) + "-H" + std::to_string(H) + "-N" +
           std::to_string(s.tokens) + (s.omega != 2 ? "-omega" + std::to_string(s.omega) : "") +
           (s.printed_last ? "-printed-last" : "") + (s.rational_v ? "-rational-v" : "");
  m.output = Entry{0, 0};
  return m;
}

LvTemplates lv_templates(const LvWitnessShape& s) {
  const LvWitnessDims D = lv_witness_dims(s);
  LvTemplates T;
  if (s.rational_v) {
    // (2 t_1, ..., 2 t_{d'-1}, |t|^2 - 1) / (|t|^2 + 1), distinct integer points t
    // with entries in [-W, W], W = R + 9, from a seeded stream. The antipode of
    // t's point is -t / |t|^2's, an integer point only when |t| = 1, so points
    // with |t| = 1 are skipped: no two rows are v and -v (their odd Hadamard
    // powers would be dependent).
    SplitMix64 rng(UINT64_C(0x6c76) + D.R);
    const auto W = static_cast<slong>(D.R + 9);
    std::set<std::vector<slong>> seen;
    for (std::size_t a = 0; a < D.R; ++a) {
      std::vector<slong> t(D.dprime - 1);
      slong t2 = 0;
      do {
        t2 = 0;
        for (auto& x : t) {
          x = static_cast<slong>(rng.below(static_cast<std::uint64_t>(2 * W + 1))) - W;
          t2 += x * x;
        }
      } while (t.size() > 0 && (t2 == 1 || !seen.insert(t).second));
      std::vector<Fmpq> v;
      for (slong x : t) v.emplace_back(2 * x, static_cast<ulong>(t2 + 1));
      v.emplace_back(t2 - 1, static_cast<ulong>(t2 + 1));
      T.vnum.push_back(std::move(v));
      T.n.emplace_back(1);
    }
  } else {
    std::vector<std::size_t> cur;
    compositions(D.dprime, D.lambda, cur, T.q);
    if (T.q.size() != D.R) throw InternalError("lv-witness: compositions count differs from ((d' λ))");
    const Fmpz omega(static_cast<slong>(s.omega));
    for (const auto& q : T.q) {
      Fmpz n, p;
      std::vector<Fmpq> v;
      for (std::size_t e : q) {
        fmpz_pow_ui(p.get(), omega.get(), e);
        v.emplace_back(p);
        fmpz_pow_ui(p.get(), omega.get(), 2 * e);
        fmpz_add(n.get(), n.get(), p.get());
      }
      T.vnum.push_back(std::move(v));
      T.n.push_back(n);
    }
  }
  const std::size_t d = s.width, da = D.da, c = D.c;
  const long unit = s.rational_v ? -1 : 0;  // rows of the Ω V carry 1/sqrt(n)
  T.x.assign(2 * D.R + 1, std::vector<LvTemplates::Entry>(d));
  for (std::size_t t = 0; t <= 2 * D.R; ++t)
    for (std::size_t k = 0; k < d; ++k) {
      const std::size_t h = k / da, o = k % da;
      auto& e = T.x[t][k];
      if (o == da - 1) {
        e.num = Fmpq(1);
      } else if (t < D.R && o < c) {  // A part: row t of V
        e.num = T.vnum[t][h * c + o];
        e.row = unit < 0 ? -1 : static_cast<long>(t);
      } else if (t >= D.R && t < 2 * D.R && o >= c) {  // B part: row t - R of V
        e.num = T.vnum[t - D.R][h * c + o - c];
        e.row = unit < 0 ? -1 : static_cast<long>(t - D.R);
      }
    }
  return T;
}

std::string lv_templates_json(const LvWitnessShape& s) {
  const LvTemplates T = lv_templates(s);
  nlohmann::ordered_json j;
  j["omega"] = s.omega;
  j["compositions"] = T.q;
  std::vector<std::string> norms;
  for (const auto& n : T.n) norms.push_back(n.str());
  j["norms2"] = norms;
  nlohmann::ordered_json xs = nlohmann::ordered_json::array();
  for (const auto& x : T.x) {
    std::vector<std::string> row;
    for (const auto& e : x)
      row.push_back(e.row < 0 ? e.num.str() : e.num.str() + "/sqrt(" + T.n[static_cast<std::size_t>(e.row)].str() + ")");
    xs.push_back(row);
  }
  j["templates"] = xs;
  return j.dump(1) + "\n";
}

}  // namespace netpoly
