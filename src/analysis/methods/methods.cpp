// The method registry, the default plan, and the helpers methods share.
#include <algorithm>
#include <cstdio>

#include "method.hpp"
#include "netpoly/error.hpp"
#include "netpoly/seprank.hpp"
#include "domains/structure_rings.hpp"

namespace netpoly {

namespace {
std::vector<const MethodInfo*>& registry() {
  static std::vector<const MethodInfo*> r;  // filled by RegisterMethod objects before main
  return r;
}
}  // namespace

RegisterMethod::RegisterMethod(const MethodInfo& info) {
  auto& r = registry();
  r.insert(std::upper_bound(r.begin(), r.end(), &info,
                            [](const MethodInfo* a, const MethodInfo* b) { return a->order < b->order; }),
           &info);
}

const std::vector<const MethodInfo*>& method_registry() { return registry(); }

const char* run_kind_name(RunKind k) {
  switch (k) {
    case RunKind::none: return "";
    case RunKind::upper: return "upper";
    case RunKind::lower: return "lower";
    case RunKind::exact: return "exact";
    case RunKind::estimate: return "estimate";
  }
  return "";
}

const MethodInfo& method_info(Method m) {
  for (const MethodInfo* i : registry())
    if (i->id == m) return *i;
  throw InputError("unknown method \"" + std::string(m.id()) + "\" (expected one of " + method_list() + ")");
}

const char* method_name(Method m) { return method_info(m).id.id().data(); }
std::vector<Method> registered_methods() {
  std::vector<Method> r;
  for (const MethodInfo* m : method_registry()) r.push_back(m->id);
  return r;
}
RunKind method_kind(Method m) { return method_info(m).kind; }
bool method_needs_expansion(Method m) { return method_info(m).needs_expansion; }
bool method_accepts_polynomial(Method m) { return method_info(m).accepts_polynomial; }

std::string method_list(const std::string& sep) {
  std::string s;
  for (const MethodInfo* i : registry()) s += (s.empty() ? "" : sep) + std::string(i->id.id());
  return s;
}

std::vector<Method> parse_methods(const std::string& list) {
  std::vector<Method> r;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto k = list.find(',', start);
    std::string w = list.substr(start, k == std::string::npos ? std::string::npos : k - start);
    const MethodInfo* found = nullptr;
    for (const MethodInfo* i : registry())
      if (w == i->id.id()) found = i;
    if (!found)
      throw InputError("--methods: unknown method \"" + w + "\" (expected a comma-separated list of " +
                       method_list() + ")");
    if (std::find(r.begin(), r.end(), found->id) == r.end()) r.push_back(found->id);
    if (k == std::string::npos) break;
    start = k + 1;
  }
  return r;
}

std::vector<Method> plan(PlanFor what) {
  std::vector<std::pair<int, Method>> slots;
  for (const MethodInfo* i : registry()) {
    const int pos = what == PlanFor::expandable_network     ? i->plan.expandable
                    : what == PlanFor::unexpandable_network ? i->plan.unexpandable
                    : what == PlanFor::generic_shape        ? i->plan.generic
                                                            : i->plan.polynomial;
    if (pos >= 0) slots.emplace_back(pos, i->id);
  }
  std::stable_sort(slots.begin(), slots.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Method> r;
  for (const auto& s : slots) r.push_back(s.second);
  return r;
}

std::vector<Method> plan_followup(bool polynomial) {
  return polynomial ? std::vector<Method>{Method::modular} : std::vector<Method>{Method::blackbox};
}

namespace methods {

const Bidegrees* BidegreeCache::get() {
  if (!tried) {
    tried = true;
    try {
      bd = support_bidegrees(m, e, P);
    } catch (const SupportRing::TooCostly& err) {
      why = err.what();
    }
  }
  return bd ? &*bd : nullptr;
}

std::optional<std::size_t> MethodContext::best_upper() const {
  std::optional<std::size_t> upper;
  for (const auto& run : res.runs)
    if ((run.kind == RunKind::upper || run.kind == RunKind::exact) && run.value)
      upper = std::min(upper.value_or(SIZE_MAX), *run.value);
  return upper;
}

double MethodContext::cap() const { return std::min(o.budget, run.budget_left()); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}


ulong default_prime(const SepOptions& o) { return o.prime ? o.prime : nth_prime(0); }

const BlackboxPrime& BlackboxDraws::prime() {
  if (!prime_) {
    prime_ = draw_blackbox_prime(m_, *o_.blackbox_seed, o_.prime);
    prime_->generic = o_.generic;
  }
  return *prime_;
}

double BlackboxDraws::height(const Entry& e) {
  auto it = height_.find(e);
  if (it == height_.end())
    it = height_.emplace(e, o_.generic ? joint_height_log2(m_, e) : coefficient_height_log2(m_, e)).first;
  return it->second;
}

double BlackboxDraws::eps_degree(const Entry& e, double input_degree) {
  if (!o_.generic) return input_degree;
  auto it = joint_degree_.find(e);
  if (it == joint_degree_.end()) it = joint_degree_.emplace(e, joint_degree(m_, e)).first;
  return it->second;
}

ModpRing prime_ring(const Model& m, const SepOptions& o) {
  if (!m.gaussian()) return ModpRing(default_prime(o));
  static const ulong first = [] {
    ulong p = UWORD(1) << 62;
    do p = n_nextprime(p, 1);
    while (p % 4 != 1);
    return p;
  }();
  return ModpRing::gaussian(o.prime ? o.prime : first);
}

MethodRun skipped(Method m, const std::string& why) {
  MethodRun r;
  r.method = m;
  r.note = why;
  return r;
}

std::vector<std::size_t> side_vars(const Partition& P, bool a) {
  std::vector<std::size_t> v;
  for (std::size_t k = 0; k < P.in_A.size(); ++k)
    if ((P.in_A[k] != 0) == a) v.push_back(k);
  return v;
}

Need single_need(const Model& m, const Entry& e) {
  Need need(m.tokens * m.output_width(), 0);
  need[e.token * m.output_width() + e.channel] = 1;
  return need;
}

double matrix_cost(const MatrixCache& mc, double factor) {
  double c = 0;
  for (const auto& b : mc.blocks) {
    double r = std::min<double>({static_cast<double>(b.rows), static_cast<double>(b.cols), 512.0});
    c += static_cast<double>(b.rows) * static_cast<double>(b.cols) * r;
  }
  return factor * c * 1e-9 + static_cast<double>(mc.C->nnz()) * 1e-7;
}

bool round_over_memory(const AnalysisContext& run, double bytes, std::size_t k, std::size_t next, std::string& note) {
  const double lim = run.max_memory_bytes;
  const double need = run.resident_bytes() + bytes;
  if (lim <= 0 || need <= lim) return false;
  note = "stopped at " + std::to_string(k) + " points: the next round (" + std::to_string(next) + ") needs about " +
         fmt_g(need / 0x1p30) + " GiB, beyond " +
         (run.memory_default ? "the default memory limit " : "--max-memory ") + fmt_g(lim / 0x1p30) +
         " GiB";
  return true;
}

void set_upper_value(MethodRun& r, const Fmpz& bound) {
  if (fmpz_cmp_ui(bound.get(), static_cast<ulong>(1) << 62) <= 0)
    r.value = static_cast<std::size_t>(fmpz_get_ui(bound.get()));
  else
    r.note = "the bound " + bound.str() + " is beyond 2^62";
}

nlohmann::json degree_weights_json(const std::map<std::size_t, Fmpz>& A, const std::map<std::size_t, Fmpz>& B) {
  nlohmann::json j = {{"A", nlohmann::json::object()}, {"B", nlohmann::json::object()}};
  for (const auto& [deg, x] : A) j["A"][std::to_string(deg)] = x.str();
  for (const auto& [deg, x] : B) j["B"][std::to_string(deg)] = x.str();
  return j;
}

}  // namespace methods
}  // namespace netpoly
