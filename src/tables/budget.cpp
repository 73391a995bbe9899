// Equal-budget comparison across architectures (netpoly table --param-budget):
// the configurations (every depth, the widest shapes within each budget), the
// table with the best-measured shapes marked, and the plot of log3 sep
// against parameters, one curve per architecture.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "netpoly/error.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/table.hpp"
#include "render_text.hpp"

namespace netpoly {

using tables_detail::csv_quote, tables_detail::log3_of, tables_detail::tex_escape;

std::vector<SweepConfig> budget_configs(const SweepSpec& s) {
  std::vector<SweepConfig> r;
  const std::vector<std::uint64_t> one{1};
  for (const auto& text : s.budgets) {
    Fmpz B;
    if (!B.set_str(text) || fmpz_sgn(B.get()) <= 0)
      throw InputError("--param-budget: expected positive integers, got \"" + text + "\"");
    for (Arch a : s.archs) {
      const bool att = a == Arch::attention, prod = a == Arch::product, mlp = a == Arch::mlp;
      const std::uint64_t N = mlp ? 1 : s.tokens.at(0);
      for (std::uint64_t H : att ? s.heads : one)
        for (std::uint64_t k : (prod || att) && !s.degrees.empty() ? s.degrees : std::vector<std::uint64_t>{0}) {
          if ((att && k == 3) || (prod && k == 2)) k = 0;  // the architecture's default
          const NetworkShape base{a, 1, 1, H, N, k, s.residual && !prod};
          DepthWidthOptions o;
          o.max_depth = s.max_depth;
          o.max_width = s.max_width;
          std::vector<DepthWidthPoint> pts;
          try {
            pts = depth_width_points(base, B, o);
          } catch (const InputError&) {
            continue;  // no shape of this kind (e.g. H above every width the cap allows)
          }
          for (const auto& pt : pts) {
            NetworkShape p = base;
            p.layers = pt.depth;
            p.width = pt.width;
            try {  // a shape the partition cannot split (one channel of one token) is no row
              parse_partition(s.partition, N, pt.width);
            } catch (const InputError&) {
              continue;
            }
            for (std::uint64_t seed = 1; seed <= s.seeds; ++seed) {
              SweepConfig c;
              c.params = p;
              c.seed = seed;
              c.budget = text;
              c.index = r.size();
              r.push_back(c);
            }
          }
        }
    }
  }
  return r;
}

namespace {

std::string fixed(double x, int digits = 3) {
  if (!std::isfinite(x)) return x > 0 ? "inf" : "-inf";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, x);
  return b;
}

std::string shape_text(const NetworkShape& p) {
  std::string s = "L" + std::to_string(p.layers) + " d" + std::to_string(p.width);
  if (p.arch == Arch::attention) s += " H" + std::to_string(p.heads);
  if (p.arch == Arch::product || (p.arch == Arch::attention && p.block_degree() != 3))
    s += " k" + std::to_string(p.block_degree());
  return s;
}

// The certified lower end as the measure of a row (a row that failed counts as -1).
long long measure(const TableRow& r) {
  if (r.status == BracketStatus::error || !r.lower.value) return -1;
  return static_cast<long long>(*r.lower.value);
}

std::string bounds_cell(const TableRow& r, bool md) {
  std::string s;
  for (const auto& b : r.bounds) {
    if (b.kind == "degree") continue;
    const char* rel = b.kind == "upper" ? " <= " : b.kind == "lower" ? " >= " : " ~ ";
    std::string v = b.value;
    if (!b.in_regime) v += md ? " †" : " (out of regime)";
    if (b.violated) v += md ? " **VIOLATED**" : " VIOLATED";
    s += (s.empty() ? "" : "; ") + b.id + rel + v;
  }
  return s;
}

}  // namespace

std::string render_budget_table(const std::vector<TableRow>& rows_in, TableFormat f, const std::string& title) {
  std::vector<TableRow> rows = rows_in;
  std::sort(rows.begin(), rows.end(), [](const TableRow& a, const TableRow& b) { return a.config.index < b.config.index; });
  // Best-measured shape (largest certified lower end) per (budget, arch, depth) and per (budget, arch).
  std::map<std::string, std::size_t> best_depth, best_arch;
  auto better = [&](std::map<std::string, std::size_t>& m, const std::string& key, std::size_t i) {
    auto it = m.find(key);
    if (measure(rows[i]) < 0) return;
    if (it == m.end() || measure(rows[i]) > measure(rows[it->second])) m[key] = i;
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& c = rows[i].config;
    const std::string ka = c.budget + "|" + arch_name(c.params.arch);
    better(best_arch, ka, i);
    better(best_depth, ka + "|" + std::to_string(c.params.layers), i);
  }
  auto mark = [&](std::size_t i) {
    const auto& c = rows[i].config;
    const std::string ka = c.budget + "|" + arch_name(c.params.arch);
    if (best_arch.count(ka) && best_arch[ka] == i) return std::string("best");
    const auto d = best_depth.find(ka + "|" + std::to_string(c.params.layers));
    return d != best_depth.end() && d->second == i ? std::string("best at depth") : std::string();
  };
  std::ostringstream os;
  if (f == TableFormat::csv) {
    os << "budget,arch,layers,width,heads,tokens,degree,residual,seed,params,lower,lower_method,upper,upper_method,"
          "status,best,second_draw,degenerate,bounds\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      const auto& p = r.config.params;
      std::vector<std::string> v{r.config.budget, arch_name(p.arch), std::to_string(p.layers), std::to_string(p.width),
                                 std::to_string(p.heads), std::to_string(p.tokens), std::to_string(p.block_degree()),
                                 p.residual ? "true" : "false", std::to_string(r.config.seed), r.params,
                                 r.lower.value ? std::to_string(*r.lower.value) : "", r.lower.method,
                                 r.upper.value ? std::to_string(*r.upper.value) : "", r.upper.method,
                                 status_name(r.status), mark(i), r.second_draw, r.degenerate_why,
                                 bounds_cell(r, false)};
      for (std::size_t k = 0; k < v.size(); ++k) os << (k ? "," : "") << csv_quote(v[k]);
      os << "\n";
    }
    return os.str();
  }
  const bool md = f == TableFormat::md;
  if (md) {
    if (!title.empty()) os << "**" << title << "**\n\n";
    os << "| budget | arch | shape | N | params | sep | status | log3 sep | | 2nd draw | bounds |\n"
       << "|---:|---|---|---:|---:|---|---|---:|---|---|---|\n";
  } else {
    os << "% " << title << "\n\\begin{tabular}{rllrrllrll}\n\\hline\nbudget & arch & shape & $N$ & params & sep & "
          "status & $\\log_3$ sep & & 2nd draw \\\\\n\\hline\n";
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto& p = r.config.params;
    const long long v = measure(r);
    const std::string l3 = v < 0 ? "-" : fixed(log3_of(static_cast<std::size_t>(v))) + (r.status == BracketStatus::exact ? "" : " (lower)");
    std::string sd = r.second_draw.empty() ? "-" : r.second_draw;
    if (r.degenerate) sd += md ? " **degenerate: " + r.degenerate_why + "**" : " degenerate: " + r.degenerate_why;
    const std::string m = mark(i);
    if (md) {
      os << "| " << r.config.budget << " | " << arch_name(p.arch) << (p.residual ? " (res.)" : "") << " | "
         << shape_text(p) << " | " << p.tokens << " | " << r.params << " | " << r.table_text() << " | "
         << status_name(r.status) << " | " << l3 << " | " << (m.empty() ? "" : "**" + m + "**") << " | " << sd << " | "
         << bounds_cell(r, true) << " |\n";
    } else {
      os << r.config.budget << " & " << arch_name(p.arch) << " & " << shape_text(p) << " & " << p.tokens << " & "
         << r.params << " & " << tex_escape(r.table_text()) << " & " << status_name(r.status) << " & " << tex_escape(l3) << " & "
         << (m.empty() ? "" : "\\textbf{" + m + "}") << " & " << tex_escape(sd) << " \\\\\n";
    }
  }
  if (!md) {
    os << "\\hline\n\\end{tabular}\n";
    return os.str();
  }
  // Per budget: the architectures by their best certified lower end.
  os << "\nsep: certified bracket of y[0][0] (exact = equal; (prob.) = certified lower bound, equal with high "
        "probability). log3 sep: of the certified lower end. best: the architecture's largest certified lower end "
        "at this budget; best at depth: the same among the shapes of one depth. 2nd draw: the same shape with an "
        "independent generic draw. † = outside the bound's regime condition; ~ = an asymptotic order, not a "
        "bound.\n\nBest measured shape per budget (certified lower ends):\n\n";
  std::vector<std::string> budgets;
  for (const auto& r : rows)
    if (std::find(budgets.begin(), budgets.end(), r.config.budget) == budgets.end()) budgets.push_back(r.config.budget);
  for (const auto& b : budgets) {
    std::vector<std::size_t> best;
    for (const auto& [k, i] : best_arch)
      if (rows[i].config.budget == b) best.push_back(i);
    std::sort(best.begin(), best.end(), [&](std::size_t x, std::size_t y) { return measure(rows[x]) > measure(rows[y]); });
    os << "* B = " << b << ":";
    for (std::size_t k = 0; k < best.size(); ++k) {
      const auto& r = rows[best[k]];
      os << (k ? "," : "") << " " << arch_name(r.config.params.arch) << " " << shape_text(r.config.params) << " ("
         << r.params << " params) sep " << r.table_text();
    }
    os << "\n";
  }
  return os.str();
}

std::string render_budget_plot(const std::vector<TableRow>& rows, const std::string& title) {
  // One series per architecture: x = parameters, y = log3 of the certified lower
  // end (a bar up to the upper end); the line joins each budget's best shape.
  // Dashed: the smallest upper bound in regime of that best shape.
  static const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"};
  struct Pt {
    double x, lo, hi;
    bool exact;
  };
  std::map<std::string, std::vector<Pt>> pts;
  std::map<std::string, std::map<std::string, std::pair<double, double>>> best;  // arch -> budget -> (x, lo)
  std::map<std::string, std::map<std::string, std::pair<double, double>>> bound;  // arch -> budget -> (x, log3)
  double xmax = 1, ymax = 1;
  for (const auto& r : rows) {
    if (r.status == BracketStatus::error || !r.lower.value) continue;
    const std::string a = arch_name(r.config.params.arch);
    const double x = std::stod(r.params), lo = std::max(0.0, log3_of(*r.lower.value));
    const double hi = r.upper.value ? std::max(lo, log3_of(*r.upper.value)) : lo;
    pts[a].push_back({x, lo, hi, r.status == BracketStatus::exact});
    xmax = std::max(xmax, x);
    ymax = std::max(ymax, lo);
    auto& b = best[a][r.config.budget];
    if (b.second < lo || b.first == 0) {
      b = {x, lo};
      double ub = HUGE_VAL;
      for (const auto& c : r.bounds)
        if (c.kind == "upper" && c.in_regime && c.defined && std::isfinite(c.log3)) ub = std::min(ub, c.log3);
      if (std::isfinite(ub)) bound[a][r.config.budget] = {x, ub};
      else bound[a].erase(r.config.budget);
    }
  }
  const double ytop = std::ceil(ymax * 1.5 + 1), xtop = xmax * 1.05;
  const int W = 760, H = 460, L = 70, R = 200, T = 40, B = 50;
  auto X = [&](double x) { return L + x / xtop * (W - L - R); };
  auto Y = [&](double y) { return H - B - std::clamp(y, 0.0, ytop) / ytop * (H - T - B); };
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
     << " " << H << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"" << W / 2
     << "\" y=\"20\" text-anchor=\"middle\" font-size=\"11\">" << title.substr(0, 110) << "</text>\n";
  os << "<g stroke=\"black\"><line x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B
     << "\"/><line x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L << "\" y2=\"" << H - B << "\"/></g>\n";
  const double ystep = std::max(1.0, std::round(ytop / 8));
  for (double y = 0; y <= ytop + 1e-9; y += ystep)
    os << "<text x=\"" << L - 6 << "\" y=\"" << Y(y) + 4 << "\" text-anchor=\"end\">" << static_cast<long>(y) << "</text>\n";
  const double xstep = std::pow(10.0, std::floor(std::log10(xtop / 2)));
  for (double x = 0; x <= xtop + 1e-9; x += xstep * (xtop / xstep > 10 ? 2 : 1))
    os << "<text x=\"" << X(x) << "\" y=\"" << H - B + 16 << "\" text-anchor=\"middle\">" << static_cast<long>(x)
       << "</text>\n";
  os << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12 << "\" text-anchor=\"middle\">parameters</text>\n"
     << "<text transform=\"translate(18," << (T + H - B) / 2
     << ") rotate(-90)\" text-anchor=\"middle\">log3 sep (certified lower end)</text>\n";
  int si = 0;
  double ly = T + 6;
  for (const auto& [a, ps] : pts) {
    const char* col = kColours[si++ % 5];
    os << "<g fill=\"" << col << "\" stroke=\"" << col << "\">\n";
    for (const auto& q : ps) {
      if (q.hi > q.lo + 1e-9)
        os << "<line stroke-width=\"2\" x1=\"" << X(q.x) << "\" x2=\"" << X(q.x) << "\" y1=\"" << Y(q.lo) << "\" y2=\""
           << Y(std::min(q.hi, ytop)) << "\"/>\n";
      os << "<circle r=\"3\" cx=\"" << X(q.x) << "\" cy=\"" << Y(q.lo) << "\"" << (q.exact ? "" : " fill=\"white\"") << "/>\n";
    }
    std::vector<std::pair<double, double>> line, ub;
    for (const auto& [b, p] : best[a]) line.push_back(p);
    for (const auto& [b, p] : bound[a]) ub.push_back(p);
    std::sort(line.begin(), line.end());
    std::sort(ub.begin(), ub.end());
    os << "<polyline fill=\"none\" stroke-width=\"1.5\" points=\"";
    for (const auto& [x, y] : line) os << X(x) << "," << Y(y) << " ";
    os << "\"/>\n<polyline fill=\"none\" stroke-width=\"1\" stroke-dasharray=\"6,4\" points=\"";
    for (const auto& [x, y] : ub) os << X(x) << "," << Y(y) << " ";
    os << "\"/>\n</g>\n<g><line x1=\"" << W - R + 12 << "\" x2=\"" << W - R + 32 << "\" y1=\"" << ly << "\" y2=\"" << ly
       << "\" stroke=\"" << col << "\" stroke-width=\"2\"/><text x=\"" << W - R + 36 << "\" y=\"" << ly + 4 << "\">" << a
       << " (best per budget)</text></g>\n";
    ly += 16;
    os << "<g><line x1=\"" << W - R + 12 << "\" x2=\"" << W - R + 32 << "\" y1=\"" << ly << "\" y2=\"" << ly
       << "\" stroke=\"" << col << "\" stroke-dasharray=\"6,4\"/><text x=\"" << W - R + 36 << "\" y=\"" << ly + 4 << "\">"
       << a << ": smallest upper bound</text></g>\n";
    ly += 20;
  }
  os << "<text x=\"" << W - R + 12 << "\" y=\"" << ly + 6
     << "\" font-size=\"10\">filled: exact; open: bracket (bar to the upper end)</text>\n</svg>\n";
  return os.str();
}

}  // namespace netpoly
