// A table row: its JSON form, and the one code path that judges every row —
// measured here (measure_row) or read back by a --merge or --resume: the
// consistency of its measurements, then what they determine (parameter count,
// bound cells, degenerate and violation marks).
#include <chrono>
#include <cmath>

#include "netpoly/context.hpp"
#include "netpoly/error.hpp"
#include "runtime/json_check.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/table.hpp"
#include "runtime/io.hpp"
#include "netpoly/version.hpp"
#include "render_text.hpp"

namespace netpoly {

using json = nlohmann::json;
using tables_detail::log3_of;

std::string SweepConfig::key() const {
  return (budget.empty() ? "" : "B=" + budget + " ") + shape_label(params, LabelStyle::table_key) +
         " seed=" + std::to_string(seed);
}

std::string TableRow::second_draw_text() const { return second ? second->table_text() : std::string(); }

json bound_cell_json(const BoundCell& b) {
  json x = {{"id", b.id},         {"kind", b.kind},         {"value", b.value}, {"log3", b.defined ? json(b.log3) : json(nullptr)},
            {"in_regime", b.in_regime}, {"defined", b.defined}, {"violated", b.violated}};
  x["exact"] = b.exact ? json(*b.exact) : json(nullptr);
  if (!std::isfinite(b.log3) && b.defined) x["log3"] = b.log3 > 0 ? "inf" : "-inf";
  return x;
}

json TableRow::to_json() const {
  json j;
  j["index"] = config.index;
  j["key"] = config.key();
  const auto& p = config.params;
  j["config"] = {{"arch", arch_name(p.arch)}, {"layers", p.layers}, {"width", p.width},   {"heads", p.heads},
                 {"tokens", p.tokens},        {"degree", p.degree}, {"residual", p.residual}, {"seed", config.seed}};
  if (!config.budget.empty()) j["budget"] = config.budget;
  j["params"] = params;
  if (!params_text.empty()) j["params_count"] = {{"model", param_count_name(row_param_count(sweep))}, {"count", params_text}};
  write_row_json(j);
  if (second) {
    j["second_draw"] = second->table_text();  // for reading; the bracket below is what counts
    json b;
    second->write_row_json(b);
    j["second_draw_bracket"] = b;
  }
  if (degenerate) j["degenerate"] = degenerate_why;
  if (!stop.empty()) j["stop"] = stop;
  json bs = json::array();
  for (const auto& b : bounds) bs.push_back(bound_cell_json(b));
  j["bounds"] = bs;
  j["netpoly_version"] = version;
  j["seconds"] = seconds;
  j["options"] = options;
  j["sweep"] = sweep;
  return j;
}

TableRow TableRow::from_json(const json& j) { return from_json(j, "a table row", ""); }

namespace {

BoundCell bound_cell_from(const json& x, const JsonCheck& in, const std::string& path) {
  BoundCell b;
  auto field = [&](const char* k) -> const json& { return in.at(x, path, k); };
  auto sub = [&](const char* k) { return JsonCheck::join(path, k); };
  b.id = in.text(field("id"), sub("id"));
  b.kind = in.text(field("kind"), sub("kind"));
  b.value = in.text(field("value"), sub("value"));
  if (!field("exact").is_null()) {
    b.exact = in.text(field("exact"), sub("exact"));
    if (b.exact->empty() || b.exact->find_first_not_of("0123456789") != std::string::npos)
      in.fail(sub("exact"), "expected null or the decimal digits of an integer >= 0");
  }
  const json& l = field("log3");
  if (l.is_string() && (l == "inf" || l == "-inf")) b.log3 = l == "inf" ? HUGE_VAL : -HUGE_VAL;
  else if (l.is_null()) b.log3 = NAN;
  else b.log3 = in.number(l, sub("log3"), -1e300, 1e300);
  b.in_regime = in.boolean(field("in_regime"), sub("in_regime"));
  b.defined = x.contains("defined") ? in.boolean(x["defined"], sub("defined")) : true;
  b.violated = in.boolean(field("violated"), sub("violated"));
  return b;
}

}  // namespace

TableRow TableRow::from_json(const json& j, const std::string& source, const std::string& path) {
  const JsonCheck in(source);
  TableRow r;
  auto sub = [&](const std::string& k) { return JsonCheck::join(path, k); };
  auto opt_text = [&](const char* k) { return j.contains(k) ? in.text(j[k], sub(k)) : std::string(); };
  const std::string cp = sub("config");
  const json& c = in.at(j, path, "config");
  r.config.index = in.count(in.at(j, path, "index"), sub("index"), 0, kMaxSweepRows - 1);
  auto dim = [&](const char* k) { return in.count(in.at(c, cp, k), JsonCheck::join(cp, k), 0, kMaxSweepValue); };
  const std::string arch = in.text(in.at(c, cp, "arch"), JsonCheck::join(cp, "arch"));
  r.config.params = {in.parsed(JsonCheck::join(cp, "arch"), [&] { return parse_arch(arch); }),
                     dim("layers"), dim("width"), dim("heads"), dim("tokens"), dim("degree"),
                     in.boolean(in.at(c, cp, "residual"), JsonCheck::join(cp, "residual"))};
  r.config.seed = in.count(in.at(c, cp, "seed"), JsonCheck::join(cp, "seed"), 1, kMaxSweepSeeds);
  // Journals before degree-k attention blocks stored 2 for attention rows; their keys have no k.
  if (r.config.params.arch == Arch::attention && opt_text("key").find(" k=") == std::string::npos)
    r.config.params.degree = 0;
  r.config.budget = opt_text("budget");
  if (!r.config.budget.empty() && !is_param_budget(r.config.budget))
    in.fail(sub("budget"), "expected a positive integer below 2^62 as decimal digits");
  r.params = in.text(in.at(j, path, "params"), sub("params"));
  if (j.contains("params_count")) {
    const json& pc = j["params_count"];
    r.params_text = in.text(in.at(pc, sub("params_count"), "count"), JsonCheck::join(sub("params_count"), "count"));
  }
  static_cast<Bracket&>(r) = Bracket::from_row_json(j, in, path);
  if (j.contains("second_draw_bracket"))
    r.second = Bracket::from_row_json(j["second_draw_bracket"], in, sub("second_draw_bracket"));
  if (j.contains("degenerate")) {
    r.degenerate = true;
    r.degenerate_why = in.text(j["degenerate"], sub("degenerate"));
  }
  if (j.contains("stop")) r.stop = in.text(j["stop"], sub("stop"));
  const json& bs = in.at(j, path, "bounds");
  if (!bs.is_array()) in.fail(sub("bounds"), "expected a list of bound cells, got " + JsonCheck::kind(bs));
  for (std::size_t i = 0; i < bs.size(); ++i) r.bounds.push_back(bound_cell_from(bs[i], in, JsonCheck::idx(sub("bounds"), i)));
  r.version = opt_text("netpoly_version");
  if (!r.version.empty() && !is_build_string(r.version))
    in.fail(sub("netpoly_version"), "expected a netpoly build as --version prints it, e.g. \"" + netpoly_build() +
                                        "\", got " + json(r.version).dump());
  r.seconds = j.contains("seconds") ? in.number(j["seconds"], sub("seconds"), 0, 1e12) : 0.0;
  r.options = j.value("options", json(nullptr));
  if (!r.options.is_null() && !r.options.is_object())
    in.fail(sub("options"), "expected an object, got " + JsonCheck::kind(r.options));
  r.sweep = j.value("sweep", json(nullptr));
  if (!r.sweep.is_null()) SweepSpec::from_sweep_json(r.sweep, in.source(), sub("sweep"));  // every field checked
  return r;
}

namespace {

// Compares a measured integer with a bound: -1, 0, 1 for v <, =, > bound.
// Exact when the bound's integer is known; otherwise on log3 with a margin
// (returns 0, "too close to call", inside the margin).
int compare(std::size_t v, const BoundCell& b) {
  if (b.exact) {
    Fmpz x, y;
    fmpz_set_ui(x.get(), v);
    y.set_str(*b.exact);
    return fmpz_cmp(x.get(), y.get()) < 0 ? -1 : fmpz_cmp(x.get(), y.get()) > 0 ? 1 : 0;
  }
  const double lv = log3_of(v), tol = 1e-9 * std::max(1.0, std::fabs(b.log3));
  if (lv > b.log3 + tol) return 1;
  if (lv < b.log3 - tol) return -1;
  return 0;
}

bool registered_method(const std::string& name) {
  if (name.empty() || name.find(',') != std::string::npos) return false;
  try {
    parse_methods(name);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// The first inconsistency of a bracket's ends and status ("" when none): what
// Bracket::combine guarantees for every bracket it makes.
std::string bracket_problem(const Bracket& b) {
  const auto& lo = b.lower.value;
  const auto& hi = b.upper.value;
  const std::string text = b.range_text() + " " + status_name(b.status);
  if (b.status == BracketStatus::error) return lo || hi ? "an error row with measured values " + b.range_text() : "";
  if (lo && hi && *lo > *hi)
    return "its lower end " + std::to_string(*lo) + " is above its upper end " + std::to_string(*hi);
  const bool meet = lo && hi && *lo == *hi;
  if (b.status == BracketStatus::exact && !meet) return "status exact, but its ends " + b.range_text() + " do not meet";
  if (b.status != BracketStatus::exact && meet) return "its ends meet at " + std::to_string(*lo) + ", but its status is " + status_name(b.status);
  if (b.status == BracketStatus::probabilistic) {
    if (!lo) return text + ": probabilistic without a lower end";
    if (!(b.failure_probability >= 0 && b.failure_probability < 1))
      return text + ": failure probability " + std::to_string(b.failure_probability) + " is not in [0, 1)";
  }
  // Each end is named by the registered method that certified it (Bracket::combine), a missing end by none.
  for (const auto* e : {&b.lower, &b.upper}) {
    const char* side = e == &b.lower ? "lower" : "upper";
    if (!e->value && !e->method.empty()) return std::string("no ") + side + " end, but a method for it";
    if (e->value && !registered_method(e->method))
      return std::string("its ") + side + " end's method " + nlohmann::json(e->method).dump() +
             " is no method of this netpoly (" + method_list() + ")";
  }
  return "";
}

}  // namespace

void flag_violations(TableRow& r) {
  for (auto& b : r.bounds) {
    b.violated = false;
    if (!b.in_regime || !b.defined || std::isnan(b.log3)) continue;
    // A certified lower end above an upper bound, or a lower bound above a certified upper end.
    if (b.kind == "upper" && r.lower.value && compare(*r.lower.value, b) > 0) b.violated = true;
    if (b.kind == "lower" && r.upper.value && compare(*r.upper.value, b) < 0) b.violated = true;
  }
}

std::string row_params(const NetworkShape& p, ParamCount model) { return parameter_count(p, model).str(); }

std::vector<BoundCell> row_bounds(const NetworkShape& p) {
  std::vector<BoundCell> cells;
  for (const auto& b : compute_bounds(p)) {
    BoundCell cell;
    cell.id = b.id;
    cell.kind = bound_kind_name(b.kind);
    cell.value = format_value(b, 12);
    if (b.exact) cell.exact = b.exact->str();
    cell.log3 = b.log3;
    cell.in_regime = b.in_regime;
    cell.defined = b.defined;
    cells.push_back(cell);
  }
  return cells;
}

std::string judge_row(TableRow& r) {
  if (auto p = bracket_problem(r); !p.empty()) return p;
  if (r.second) {
    if (r.status == BracketStatus::error) return "an error row with a second draw";
    if (r.second->status == BracketStatus::error) return "its second draw is an error";
    if (auto p = bracket_problem(*r.second); !p.empty()) return "second draw: " + p;
  }
  if (r.options.is_object() && r.status != BracketStatus::error) {
    const bool generic = r.options.value("weights", std::string()) == weight_dist_name(WeightDist::generic);
    if (generic && !r.second) return "generic weights, but no second draw";
    if (!generic && r.second) return "a second draw, but the weights are not generic";
  }
  try {
    const ParamCount model = row_param_count(r.sweep);
    r.params = row_params(r.config.params, model);
    r.params_text = r.config.budget.empty() ? "" : parameter_count_text(r.config.params, model);
    r.bounds = row_bounds(r.config.params);
  } catch (const InputError& e) {
    return std::string("not a valid shape: ") + e.what();
  }
  r.degenerate = false;
  r.degenerate_why.clear();
  if (r.status == BracketStatus::exact && *r.upper.value == 0) {
    r.degenerate = true;
    r.degenerate_why = "y[0][0] is identically 0";
  } else if (r.second) {
    // The generic rank is the same for almost every draw, so certified
    // brackets that do not meet mean one draw was special.
    const Bracket& b = *r.second;
    const bool apart = (r.lower.value && b.upper.value && *r.lower.value > *b.upper.value) ||
                       (b.lower.value && r.upper.value && *b.lower.value > *r.upper.value);
    if (apart) {
      r.degenerate = true;
      r.degenerate_why = "a second generic draw measures " + b.table_text() + ", this one " + r.table_text();
    }
  }
  flag_violations(r);
  return "";
}

TableRow measure_row(const SweepConfig& c, const SweepSpec& s) {
  auto t0 = std::chrono::steady_clock::now();
  TableRow row;
  row.config = c;
  row.version = netpoly_build();
  const auto& p = c.params;
  const PresetOptions po = preset_options(p, c.seed, s.range, s.weights);
  Model m = make_preset(po);
  Partition P = parse_partition(s.partition, m.tokens, m.width);
  // --budget bounds each draw of a row as a whole: the methods after one that
  // ran past its estimate get only what is left (none when nothing is).
  auto draw_context = [&s]() {
    AnalysisContext ctx = AnalysisContext::process();
    if (std::isfinite(s.sep.budget)) {
      const auto start = std::chrono::steady_clock::now();
      const double b = s.sep.budget;
      auto outer = ctx.budget_left;
      ctx.budget_left = [start, b, outer]() {
        const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return std::min(outer(), b - used);
      };
    }
    return ctx;
  };
  const SepResult first = analyse_network(m, {Entry{0, 0}}, {P}, s.sep, {}, draw_context()).at(0);
  static_cast<Bracket&>(row) = first;
  if (row.status != BracketStatus::exact) {
    // What stopped it, and the flag that lifts it: the notes of the methods skipped or capped.
    for (const auto& run : first.runs) {
      const bool capped = run.note.find("raise --") != std::string::npos;
      if ((run.value && !capped) || run.note.empty() || (!capped && run.note.rfind("skipped", 0) != 0)) continue;
      row.stop += (row.stop.empty() ? "" : "; ") + std::string(method_name(run.method)) + ": " + run.note;
    }
  }
  if (s.weights == WeightDist::generic)  // a second independent draw of the same shape
    row.second = analyse_network(make_preset(second_draw(po)), {Entry{0, 0}}, {P}, s.sep, {}, draw_context()).at(0);
  row.options = s.row_options();
  row.sweep = s.sweep_json();
  if (const std::string why = judge_row(row); !why.empty())
    throw InternalError("table row " + c.key() + ": " + why);
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return row;
}

}  // namespace netpoly
