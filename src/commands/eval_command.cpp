// netpoly eval MODEL --points FILE: the model's output at each point, exact
// over Q (Q(i) when a weight or an entry is Gaussian), or mod --modulus.
// Text: one block per point, its output matrix row by row; --json:
// netpoly-values/1 (docs/guide/python.md, "Evaluation").
#include <iostream>

#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/evaluate.hpp"
#include "netpoly/io.hpp"
#include "runtime/text_escape.hpp"

namespace netpoly::cli {

void run_eval(const EvalOptions& o) {
  const ulong p = o.modulus_text.empty() ? 0 : parse_u64(o.modulus_text, "--modulus", 2);
  if (o.model == "-" && o.points == "-") throw InputError("--points -: the model already reads standard input");
  const Model m = read_model(o.model);
  const auto points = parse_points(read_text_file(o.points, "the points file"), o.points == "-" ? "<stdin>" : o.points, m);
  const std::size_t dout = m.output_width();
  nlohmann::json values = nlohmann::json::array();
  std::string over;
  nlohmann::json extra = nlohmann::json::object();
  if (p) {
    const ModValues r = evaluate_mod(m, points, p, "--modulus");
    over = "Z/" + std::to_string(p);
    extra["prime"] = p;
    if (r.sqrt_minus_one) extra["sqrt_minus_one"] = r.sqrt_minus_one;
    for (const auto& v : r.values) {
      nlohmann::json rows = nlohmann::json::array();
      for (std::size_t i = 0; i < m.tokens; ++i)
        rows.push_back(std::vector<ulong>(v.begin() + static_cast<std::ptrdiff_t>(i * dout),
                                          v.begin() + static_cast<std::ptrdiff_t>((i + 1) * dout)));
      values.push_back(rows);
    }
  } else {
    const auto r = evaluate(m, points);
    bool gauss = m.gaussian();
    for (const auto& v : r) {
      nlohmann::json rows = nlohmann::json::array();
      for (std::size_t i = 0; i < m.tokens; ++i) {
        nlohmann::json row = nlohmann::json::array();
        for (std::size_t c = 0; c < dout; ++c) {
          const Exact& x = v[i * dout + c];
          gauss = gauss || !x.im.is_zero();
          row.push_back(exact_text(x));
        }
        rows.push_back(row);
      }
      values.push_back(rows);
    }
    over = gauss || m.gaussian() ? "Q(i)" : "Q";
  }
  const std::string how = p ? "exact residues mod the prime " + std::to_string(p) : "exact";
  if (o.json) {
    nlohmann::json j = {{"format", "netpoly-values/1"}, {"model", m.name}, {"over", over}, {"how", how},
                        {"tokens", m.tokens}, {"output_width", dout}};
    j.update(extra);
    j["values"] = values;
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << "# netpoly eval: " << (m.name.empty() ? std::string("the model") : printable(m.name)) << " at " << points.size() << " point(s), " << how << " (over "
            << over << ")";
  if (extra.contains("sqrt_minus_one")) std::cout << "; i maps to " << extra["sqrt_minus_one"].get<ulong>();
  std::cout << "\n";
  for (std::size_t k = 0; k < values.size(); ++k) {
    std::cout << "point " << k << ":\n";
    for (const auto& row : values[k]) {
      std::cout << " ";
      for (const auto& x : row) std::cout << " " << (x.is_string() ? x.get<std::string>() : x.dump());
      std::cout << "\n";
    }
  }
}

}  // namespace netpoly::cli
