// A sweep's identity: the options a row was measured with and the whole
// sweep (SweepSpec, table.hpp), as the journals and a merge read them, and
// the title an unsharded run gives its table.
#include <cmath>

#include "netpoly/error.hpp"
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

SweepSpec SweepSpec::from_sweep_json(const json& j) {
  SweepSpec s;
  try {
    s.arch = parse_arch(j.at("arch").get<std::string>());
    s.layers = j.at("layers").get<std::vector<std::uint64_t>>();
    s.widths = j.at("widths").get<std::vector<std::uint64_t>>();
    s.heads = j.at("heads").get<std::vector<std::uint64_t>>();
    s.tokens = j.at("tokens").get<std::vector<std::uint64_t>>();
    s.degrees = j.at("degrees").get<std::vector<std::uint64_t>>();
    if (s.arch == Arch::attention) s.degrees = j.value("block_degrees", std::vector<std::uint64_t>{});
    s.residual = j.at("residual").get<bool>();
    s.seeds = j.at("seeds").get<std::uint64_t>();
    if (j.contains("budgets")) {
      for (const auto& a : j.at("archs")) s.archs.push_back(parse_arch(a.get<std::string>()));
      s.budgets = j.at("budgets").get<std::vector<std::string>>();
      s.max_depth = j.at("max_depth").get<std::uint64_t>();
      s.max_width = j.at("max_width").get<std::uint64_t>();
      s.param_count = row_param_count(j);
    }
    const auto& o = j.at("options");
    s.range = o.at("range").get<std::int64_t>();
    s.weights = parse_weight_dist(o.value("weights", std::string("small")));
    s.partition = o.at("partition").get<std::string>();
    const std::string ms = o.at("methods").get<std::string>();
    if (ms != "default") s.sep.methods = parse_methods(ms);
    if (!o.at("budget").is_null()) s.sep.budget = o["budget"].get<double>();
    s.sep.max_terms = o.at("max_terms").get<double>();
    s.sep.max_points = o.value("max_points", SweepSpec{}.sep.max_points);
  } catch (const json::exception& e) {
    throw InputError(std::string("not a netpoly sweep description: ") + e.what());
  }
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

std::string options_difference(const json& kept, const json& now) {
  static const std::vector<std::pair<const char*, const char*>> names{
      {"range", "--range"},     {"weights", "--weights"},     {"partition", "--partition"}, {"output", "the output entry"},
      {"methods", "--methods"}, {"budget", "--budget"},       {"max_terms", "--max-terms"},
      {"max_points", "--max-points"}};
  auto text = [](const json& v) { return v.is_null() ? std::string("none") : v.is_string() ? v.get<std::string>() : v.dump(); };
  if (!kept.is_object()) return "the options it was made with (an older journal does not record them)";
  for (const auto& [k, flag] : names) {
    const json a = kept.value(k, json(nullptr)), b = now.value(k, json(nullptr));
    if (a != b) return std::string(flag) + " " + text(a) + " there, " + text(b) + " in this run";
  }
  return kept == now ? "" : "an option";
}

}  // namespace netpoly
