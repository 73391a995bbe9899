// bound / log3bound / regime of the claim language over the bounds library.
#include "claims/eval/claim_bounds.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <mutex>

#include "netpoly/error.hpp"

namespace netpoly {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The first of the names present in the call, as an exact non-negative integer.
std::optional<std::uint64_t> get_uint(const BoundCall& c, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    auto it = c.numbers.find(n);
    if (it == c.numbers.end()) continue;
    auto z = it->second.exact_integer();
    if (!z || fmpz_sgn(z->get()) < 0 || !fmpz_abs_fits_ui(z->get()))
      throw InputError("bound(\"" + c.id + "\"): " + n + " must be an exact integer >= 0, got " + describe(it->second));
    return fmpz_get_ui(z->get());
  }
  return std::nullopt;
}

const Quantity& need_quantity(const BoundCall& c, const char* name, const std::string& id) {
  auto it = c.numbers.find(name);
  if (it == c.numbers.end()) throw InputError("bound(\"" + id + "\"): missing the parameter " + name);
  return it->second;
}

// A lemma f(K) monotone non-decreasing in K >= 0, applied to both ends of K's intervals.
Quantity monotone_in_K(const Quantity& K, const std::function<Fmpz(const Fmpz&)>& f, const std::string& id) {
  auto end = [&](const XRat& x, bool lo) -> XRat {
    if (x.inf_sign() > 0) return XRat::inf(1);
    if (!x.finite() || x.sign() < 0) {
      if (lo) return XRat(f(Fmpz(0)));
      throw InputError("bound(\"" + id + "\"): K must be >= 0");
    }
    Fmpz z;  // K is an integer (a separation rank), its ends already rounded inwards
    if (lo)
      fmpz_cdiv_q(z.get(), x.value().num(), x.value().den());
    else
      fmpz_fdiv_q(z.get(), x.value().num(), x.value().den());
    return XRat(f(z));
  };
  auto iv = [&](const Interval& i) { return Interval(end(i.lo, true), end(i.hi, false)); };
  Quantity r = q_integer(K, "bound(\"" + id + "\"): K");
  r.cert = iv(r.cert);
  r.likely = r.trust == Trust::exact ? r.cert : iv(r.likely);
  return r;
}

// A one-step lemma of the registry (bounds.hpp): its parameters by their
// names, the function applied to both ends of K's interval.
Quantity lemma(const BoundCall& c, const StepLemma& l) {
  std::vector<std::uint64_t> args;
  for (const auto& names : l.params) {
    bool found = false;
    for (const auto& n : names) {
      auto it = c.numbers.find(n);
      if (it == c.numbers.end()) continue;
      auto z = it->second.exact_integer();
      if (!z || fmpz_sgn(z->get()) < 0 || !fmpz_abs_fits_ui(z->get()))
        throw InputError("bound(\"" + c.id + "\"): " + n + " must be an exact integer >= 0, got " + describe(it->second));
      args.push_back(fmpz_get_ui(z->get()));
      found = true;
      break;
    }
    if (!found) throw InputError("bound(\"" + std::string(l.id) + "\"): missing the parameter " + names.front());
  }
  return monotone_in_K(
      need_quantity(c, "K", l.id), [&](const Fmpz& K) { return l.apply(K, args); }, l.id);
}

}  // namespace

std::vector<std::string> claim_bound_ids() {
  static std::once_flag once;
  static std::vector<std::string> ids;
  std::call_once(once, [] {
    ids = bound_ids();  // the registry (src/bounds/)
    for (const StepLemma* l : step_lemmas()) ids.push_back(l->id);
  });
  return ids;
}

std::string resolve_bound_id(const std::string& written, const std::vector<std::string>& among, std::string* why) {
  const std::string w = lower(written);
  for (const auto& id : among)
    if (lower(id) == w) return id;
  std::vector<std::string> hits;
  for (const auto& id : among)
    if (lower(id).rfind(w, 0) == 0) hits.push_back(id);
  if (hits.size() == 1) return hits[0];
  std::string list;
  for (const auto& id : (hits.empty() ? among : hits)) list += (list.empty() ? "" : ", ") + ("\"" + id + "\"");
  if (why)
    *why = hits.empty() ? "unknown id \"" + written + "\" (known: " + list + ")"
                        : "\"" + written + "\" is ambiguous (" + list + ")";
  return "";
}

Quantity claim_bound(const BoundCall& c, BoundWant want, BoundUse* use) {
  std::string why;
  const std::string known = resolve_bound_id(c.id, claim_bound_ids(), &why);
  if (known.empty()) throw InputError("bound: " + why);
  if (use) use->id = known;
  if (const StepLemma* l = find_step_lemma(known)) {
    if (want == BoundWant::regime) return Quantity::exact(XRat(1));
    Quantity q = lemma(c, *l);
    if (want == BoundWant::log3) return q_log(q, Quantity::exact(XRat(3)));
    return q;
  }
  NetworkShape p = c.shape.value_or(NetworkShape{});
  if (auto w = c.words.find("arch"); w != c.words.end())
    p.arch = parse_arch(w->second);
  else if (!c.shape)
    throw InputError("bound(\"" + known + "\"): give a network, or arch = attention|mixer|mlp|product and its shape");
  if (auto v = get_uint(c, {"layers", "L", "p"})) p.layers = *v;
  if (auto v = get_uint(c, {"width", "d", "m"})) p.width = *v;
  if (auto v = get_uint(c, {"heads", "H"})) p.heads = *v;
  if (auto v = get_uint(c, {"tokens", "N", "n"})) p.tokens = *v;
  if (auto v = get_uint(c, {"degree", "k"})) p.degree = *v;
  if (auto v = get_uint(c, {"residual"})) p.residual = *v != 0;
  const auto records = compute_bounds(p);
  std::vector<std::string> ids;
  for (const auto& b : records) ids.push_back(b.id);
  const std::string id = resolve_bound_id(c.id, ids, &why);
  if (id.empty())
    throw InputError("bound(\"" + c.id + "\") does not apply to " + arch_name(p.arch) +
                     (p.residual ? " with residuals" : "") + ": " + why);
  const Bound& b = *std::find_if(records.begin(), records.end(), [&](const Bound& x) { return x.id == id; });
  if (use) {
    use->id = id;
    use->vacuous = b.kind == BoundKind::lower && b.defined && !(b.log3 > 0);
  }
  if (want == BoundWant::regime) return Quantity::exact(XRat(b.in_regime ? 1 : 0));
  if (!b.defined) throw InputError("bound(\"" + id + "\") is undefined for these parameters (" + b.formula + ")");
  if (b.value_kind == ValueKind::exact && b.exact) {
    Quantity q = Quantity::exact(XRat(*b.exact));
    if (want == BoundWant::log3) return q_log(q, Quantity::exact(XRat(3)));
    return q;
  }
  if (want == BoundWant::value)
    throw InputError("bound(\"" + id + "\") is known only as a base-3 logarithm (" + b.formula +
                     "); use log3bound(...) and compare with log3(...)");
  // log3 to 20 significant digits from 256-bit MPFR: a margin of 1e-15 relative is safe.
  Fmpq v;
  {
    const std::string& t = b.log3_text;
    double d = std::strtod(t.c_str(), nullptr);
    if (!std::isfinite(d)) throw LimitError("bound(\"" + id + "\"): log3 value " + t + " is out of range");
    v = fmpq_from_double(d);
  }
  const double mag = std::fabs(v.to_double());
  const Fmpq margin = fmpq_from_double(1e-15 * std::max(1.0, mag));
  Fmpq lo, hi;
  fmpq_sub(lo.get(), v.get(), margin.get());
  fmpq_add(hi.get(), v.get(), margin.get());
  return Quantity::enclosure(Interval(XRat(lo), XRat(hi)));
}

}  // namespace netpoly
