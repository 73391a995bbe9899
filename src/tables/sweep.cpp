// A sweep's identity: the options a row was measured with and the whole
// sweep (SweepSpec, table.hpp), as the journals and a merge read them, and
// the title an unsharded run gives its table.
#include <cmath>

#include "netpoly/error.hpp"
#include "runtime/json_check.hpp"
#include "netpoly/table.hpp"

namespace netpoly {

using json = nlohmann::json;

json SweepSpec::row_options() const {
  std::string ms;
  for (Method m : sep.methods) ms += (ms.empty() ? "" : ",") + std::string(method_name(m));
  json b = std::isfinite(sep.budget) ? json(sep.budget) : json(nullptr);
  json o = {{"range", range},          {"weights", weight_dist_name(weights)}, {"partition", partition}, {"output", "0,0"},
            {"methods", ms.empty() ? "default" : ms}, {"budget", b}, {"max_terms", sep.max_terms}};
  // Recorded only when not the tables' 1,024, so journals from before the option still resume.
  if (sep.max_points != SweepSpec{}.sep.max_points) o["max_points"] = sep.max_points;
  return o;
}

json SweepSpec::sweep_json() const {
  // Attention sweeps wrote "degrees": [2] before degree-k attention blocks
  // existed; they still do (so that shards of old and new runs merge), and
  // name other block degrees under "block_degrees".
  const bool att = arch == Arch::attention;
  const std::vector<std::uint64_t> legacy{2};
  json j = {{"arch", arch_name(arch)}, {"layers", layers},   {"widths", widths},   {"heads", heads},
            {"tokens", tokens},        {"degrees", att || degrees.empty() ? legacy : degrees}, {"residual", residual},
            {"seeds", seeds},          {"options", row_options()}};
  if (att && !degrees.empty() && degrees != std::vector<std::uint64_t>{3}) j["block_degrees"] = degrees;
  if (!budgets.empty()) {
    json a = json::array();
    for (Arch x : archs) a.push_back(arch_name(x));
    j["archs"] = a;
    j["budgets"] = budgets;
    j["max_depth"] = max_depth;
    j["max_width"] = max_width;
    j["param_count"] = param_count_name(param_count);
  }
  return j;
}

SweepSpec SweepSpec::from_sweep_json(const json& j) { return from_sweep_json(j, "a sweep description", ""); }

bool is_param_budget(const std::string& b) {
  Fmpz B;
  return !b.empty() && b.size() <= 19 && b.find_first_not_of("0123456789") == std::string::npos && B.set_str(b) &&
         fmpz_sgn(B.get()) > 0 && fmpz_bits(B.get()) <= 62;
}

// Every field as strictly as the CLI's own options take it (table_spec): the
// same ranges, so a sweep read from a file is never larger than one the CLI
// could be asked for, and sweep_configs refuses it before allocating.
SweepSpec SweepSpec::from_sweep_json(const json& j, const std::string& source, const std::string& path) {
  const JsonCheck in(source);
  SweepSpec s;
  auto sub = [&](const std::string& k) { return JsonCheck::join(path, k); };
  auto field = [&](const json& o, const std::string& at, const char* k) -> const json& { return in.at(o, at, k); };
  auto arch = [&](const json& v, const std::string& at) {
    const std::string a = in.text(v, at, 64);
    return in.parsed(at, [&] { return parse_arch(a); });
  };
  auto list = [&](const char* k) {
    return in.counts(field(j, path, k), sub(k), 0, kMaxSweepValue, kMaxSweepRows);
  };
  s.arch = arch(field(j, path, "arch"), sub("arch"));
  s.layers = list("layers");
  s.widths = list("widths");
  s.heads = list("heads");
  s.tokens = list("tokens");
  s.degrees = list("degrees");
  if (s.arch == Arch::attention)
    s.degrees = j.contains("block_degrees")
                    ? in.counts(j["block_degrees"], sub("block_degrees"), 0, kMaxSweepValue, kMaxSweepRows)
                    : std::vector<std::uint64_t>{};
  s.residual = in.boolean(field(j, path, "residual"), sub("residual"));
  s.seeds = in.count(field(j, path, "seeds"), sub("seeds"), 1, kMaxSweepSeeds);
  if (j.contains("budgets")) {
    const json& as = field(j, path, "archs");
    if (!as.is_array() || as.empty() || as.size() > 16)
      in.fail(sub("archs"), "expected a list of 1 to 16 architectures, got " + JsonCheck::kind(as));
    for (std::size_t i = 0; i < as.size(); ++i) s.archs.push_back(arch(as[i], JsonCheck::idx(sub("archs"), i)));
    s.budgets = in.texts(j["budgets"], sub("budgets"), kMaxSweepRows, 19);
    for (std::size_t i = 0; i < s.budgets.size(); ++i)
      if (!is_param_budget(s.budgets[i]))
        in.fail(JsonCheck::idx(sub("budgets"), i), "expected a positive integer below 2^62 as decimal digits");
    if (s.budgets.empty()) in.fail(sub("budgets"), "expected at least one budget");
    s.max_depth = in.count(field(j, path, "max_depth"), sub("max_depth"), 1, kMaxSweepDepth);
    s.max_width = in.count(field(j, path, "max_width"), sub("max_width"), 1, kMaxSweepWidth);
    if (j.contains("param_count")) {  // sweeps before --param-count counted netpoly's way
      const std::string pc = in.text(j["param_count"], sub("param_count"), 64);
      s.param_count = in.parsed(sub("param_count"), [&] { return parse_param_count(pc, "param_count"); });
    }
  }
  const std::string op = sub("options");
  const json& o = field(j, path, "options");
  auto osub = [&](const char* k) { return JsonCheck::join(op, k); };
  s.range = in.integer(field(o, op, "range"), osub("range"), 0, kMaxWeightRange);
  const std::string w = o.contains("weights") ? in.text(o["weights"], osub("weights"), 64) : std::string("small");
  s.partition = in.text(field(o, op, "partition"), osub("partition"));
  const std::string ms = in.text(field(o, op, "methods"), osub("methods"));
  s.weights = in.parsed(osub("weights"), [&] { return parse_weight_dist(w); });
  if (ms != "default") s.sep.methods = in.parsed(osub("methods"), [&] { return parse_methods(ms); });
  if (!field(o, op, "budget").is_null()) s.sep.budget = in.number(o["budget"], osub("budget"), 1e-9, 1e12);
  s.sep.max_terms = in.number(field(o, op, "max_terms"), osub("max_terms"), 1e-9, 1e300);
  if (o.contains("max_points")) s.sep.max_points = in.count(o["max_points"], osub("max_points"), 1, 1 << 20);
  in.parsed(path, [&] { check_sweep_size(s); });
  return s;
}

std::string sweep_title(const SweepSpec& s) {
  PresetOptions po;
  po.range = s.range;
  po.weights = s.weights;
  if (!s.budgets.empty()) {
    std::string archs, bs;
    for (Arch a : s.archs) archs += (archs.empty() ? "" : ", ") + std::string(arch_name(a));
    for (const auto& b : s.budgets) bs += (bs.empty() ? "" : ", ") + b;
    return "netpoly table: equal parameter budgets " + bs + " for " + archs + (s.residual ? " with residuals" : "") +
           ", N = " + std::to_string(s.tokens.at(0)) + " tokens (mlp: 1), parameters counted by " +
           param_count_name(s.param_count) + ", partition " + s.partition + ", output y[0][0], weights " +
           po.weights_text();
  }
  return std::string("netpoly table: ") + arch_name(s.arch) + (s.residual ? " with residuals" : "") +
         ", partition " + s.partition + ", output y[0][0], weights " + po.weights_text();
}

// Sweeps before --param-count record no model: they counted netpoly's way.
ParamCount row_param_count(const json& sweep) {
  if (!sweep.is_object() || !sweep.contains("param_count")) return ParamCount::netpoly;
  return parse_param_count(sweep["param_count"].get<std::string>(), "the sweep's param_count");
}

std::string options_difference(const json& kept, const json& now, const std::string& here) {
  static const std::vector<std::pair<const char*, const char*>> names{
      {"range", "--range"},     {"weights", "--weights"},     {"partition", "--partition"}, {"output", "the output entry"},
      {"methods", "--methods"}, {"budget", "--budget"},       {"max_terms", "--max-terms"},
      {"max_points", "--max-points"}};
  auto text = [](const json& v) { return v.is_null() ? std::string("none") : v.is_string() ? v.get<std::string>() : v.dump(); };
  if (!kept.is_object()) return "the options it was made with (an older journal does not record them)";
  for (const auto& [k, flag] : names) {
    const json a = kept.value(k, json(nullptr)), b = now.value(k, json(nullptr));
    if (a != b) return std::string(flag) + " " + text(a) + " there, " + text(b) + " " + here;
  }
  return kept == now ? "" : "an option";
}

}  // namespace netpoly
