// Equal-budget comparison across architectures (netpoly table --param-budget):
// the configurations (every depth, the widest shapes within each budget), the
// table with the best-measured shapes marked, and the plot of log3 sep
// against parameters, one curve per architecture.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "netpoly/error.hpp"
#include "runtime/limits.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/table.hpp"
#include "render_text.hpp"

namespace netpoly {

using namespace tables_detail;

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
          check_param_count(base, s.param_count);  // a model that cannot count this block is an error, not "no fit"
          DepthWidthOptions o;
          o.max_depth = s.max_depth;
          o.max_width = s.max_width;
          o.count = s.param_count;
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

std::string fixed(double x, int digits = 3) { return format_fixed(x, digits); }

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

// Best-measured shape (largest certified lower end) per (budget, arch, depth) and per (budget, arch).
struct Best {
  const std::vector<TableRow>& rows;
  std::map<std::string, std::size_t> depth, arch;
  explicit Best(const std::vector<TableRow>& rs) : rows(rs) {
    auto better = [&](std::map<std::string, std::size_t>& m, const std::string& key, std::size_t i) {
      auto it = m.find(key);
      if (measure(rows[i]) < 0) return;
      if (it == m.end() || measure(rows[i]) > measure(rows[it->second])) m[key] = i;
    };
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string ka = arch_key(rows[i]);
      better(arch, ka, i);
      better(depth, ka + "|" + std::to_string(rows[i].config.params.layers), i);
    }
  }
  static std::string arch_key(const TableRow& r) { return r.config.budget + "|" + arch_name(r.config.params.arch); }
  std::string mark(std::size_t i) const {
    const std::string ka = arch_key(rows[i]);
    if (auto a = arch.find(ka); a != arch.end() && a->second == i) return "best";
    const auto d = depth.find(ka + "|" + std::to_string(rows[i].config.params.layers));
    return d != depth.end() && d->second == i ? "best at depth" : "";
  }
};

std::string log3_text(const TableRow& r) {
  const long long v = measure(r);
  return v < 0 ? "-" : fixed(log3_of(static_cast<std::size_t>(v))) + (r.status == BracketStatus::exact ? "" : " (lower)");
}

std::string bound_mark(const std::string& kind, bool md) {
  if (kind == "upper") return md ? "<=" : "\\(\\le\\)";
  if (kind == "lower") return md ? ">=" : "\\(\\ge\\)";
  if (kind == "degree") return md ? "deg" : "degree";
  return md ? "Theta" : "\\(\\Theta\\)";
}

void budget_csv(std::ostream& os, const std::vector<TableRow>& rows, const Best& best, const BoundColumns& cols) {
  std::vector<std::string> head{"budget", "arch", "layers", "width", "heads", "tokens", "degree", "residual", "seed",
                                "params", "params_count", "lower", "lower_method", "upper", "upper_method", "status", "best",
                                "second_draw", "degenerate", "netpoly_version"};
  if (cols.ids.empty()) head.push_back("bounds");
  for (const auto& id : cols.ids)
    for (const char* suffix : {"", " log3", " in_regime", " violated"}) head.push_back(id + suffix);
  for (std::size_t k = 0; k < head.size(); ++k) os << (k ? "," : "") << csv_quote(head[k]);
  os << "\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto& p = r.config.params;
    std::vector<std::string> v{r.config.budget, arch_name(p.arch), std::to_string(p.layers), std::to_string(p.width),
                               std::to_string(p.heads), std::to_string(p.tokens), std::to_string(p.block_degree()),
                               p.residual ? "true" : "false", std::to_string(r.config.seed), r.params, r.params_text,
                               r.lower.value ? std::to_string(*r.lower.value) : "", r.lower.method,
                               r.upper.value ? std::to_string(*r.upper.value) : "", r.upper.method,
                               status_name(r.status), best.mark(i), r.second_draw_text(), r.degenerate_why, r.version};
    if (cols.ids.empty()) v.push_back(bounds_cell(r, false));
    for (const auto& id : cols.ids) {
      const BoundCell* b = cell_for(r, id);
      append_bound_csv(v, b);
    }
    for (std::size_t k = 0; k < v.size(); ++k) os << (k ? "," : "") << csv_quote(v[k]);
    os << "\n";
  }
}

void budget_md(std::ostream& os, const std::vector<TableRow>& rows, const Best& best, const BoundColumns& cols,
               const std::string& title) {
  if (!title.empty()) os << "**" << md_escape(title) << "**\n\n";
  os << "| budget | arch | shape | N | params | count | sep | status | log3 sep | | 2nd draw |";
  if (cols.ids.empty()) os << " bounds |";
  for (std::size_t k = 0; k < cols.ids.size(); ++k) os << " " << md_escape(cols.ids[k]) << " (" << bound_mark(cols.kinds[k], true) << ") |";
  os << "\n|---:|---|---|---:|---:|---|---|---|---:|---|---|";
  for (std::size_t k = 0; k < std::max<std::size_t>(1, cols.ids.size()); ++k) os << "---|";
  os << "\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto& p = r.config.params;
    std::string sd = r.second ? r.second_draw_text() : "-";
    if (r.degenerate) sd += " **degenerate: " + md_escape(r.degenerate_why) + "**";
    const std::string m = best.mark(i);
    os << "| " << r.config.budget << " | " << arch_name(p.arch) << (p.residual ? " (res.)" : "") << " | "
       << shape_text(p) << " | " << p.tokens << " | " << r.params << " | " << r.params_text << " | " << r.table_text() << " | "
       << status_name(r.status) << " | " << log3_text(r) << " | " << (m.empty() ? "" : "**" + m + "**") << " | " << sd
       << " |";
    if (cols.ids.empty()) os << " " << bounds_cell(r, true) << " |";
    for (const auto& id : cols.ids) {
      const BoundCell* b = cell_for(r, id);
      std::string v = b ? b->value + (b->in_regime ? "" : " †") : "";
      if (b && b->violated) v = "**" + v + " VIOLATED**";
      os << " " << v << " |";
    }
    os << "\n";
  }
  // Per budget: the architectures by their best certified lower end.
  os << "\nsep: certified bracket of y[0][0] (exact = equal; (prob.) = certified lower bound, equal with high "
        "probability). log3 sep: of the certified lower end. best: the architecture's largest certified lower end "
        "at this budget; best at depth: the same among the shapes of one depth. 2nd draw: the same shape with an "
        "independent generic draw. † = outside the bound's regime condition; ~ = an asymptotic order, not a "
        "bound.";
  if (const std::string v = row_versions(rows); !v.empty()) os << " Measured by netpoly " << md_escape(v) << ".";
  os << "\n\nBest measured shape per budget (certified lower ends):\n\n";
  std::vector<std::string> budgets;
  for (const auto& r : rows)
    if (std::find(budgets.begin(), budgets.end(), r.config.budget) == budgets.end()) budgets.push_back(r.config.budget);
  for (const auto& b : budgets) {
    std::vector<std::size_t> top;
    for (const auto& [k, i] : best.arch)
      if (rows[i].config.budget == b) top.push_back(i);
    std::sort(top.begin(), top.end(), [&](std::size_t x, std::size_t y) { return measure(rows[x]) > measure(rows[y]); });
    os << "* B = " << b << ":";
    for (std::size_t k = 0; k < top.size(); ++k) {
      const auto& r = rows[top[k]];
      os << (k ? "," : "") << " " << arch_name(r.config.params.arch) << " " << shape_text(r.config.params) << " ("
         << r.params << " params) sep " << r.table_text();
    }
    os << "\n";
  }
}

// LaTeX (booktabs, numbers for siunitx). Without --bounds it has no bound
// columns: the bounds of four architectures in one cell run off any page.
void budget_latex(std::ostream& os, const std::vector<TableRow>& rows, const Best& best, const BoundColumns& cols,
                  const std::string& title) {
  os << "% " << tex_comment(title) << "\n% netpoly table; " << kTexNeeds
     << (cols.ids.empty() ? "; --bounds ID,... adds bound columns" : "") << "\n" << tex_fit_begin() << "\\begin{tabular}{rllrrlllrll"
     << std::string(cols.ids.size(), 'r') << "}\n\\toprule\nbudget & arch & shape & \\(N\\) & params & count & sep & status & "
        "\\(\\log_3\\) sep & & 2nd draw";
  for (std::size_t k = 0; k < cols.ids.size(); ++k)
    os << " & " << tex_escape(cols.ids[k]) << " (" << bound_mark(cols.kinds[k], false) << ")";
  os << " \\\\\n\\midrule\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto& p = r.config.params;
    const long long v = measure(r);
    std::string l3 = v < 0 ? "--" : tex_num(fixed(log3_of(static_cast<std::size_t>(v))));
    if (v >= 0 && r.status != BracketStatus::exact) l3 += " (lower)";
    std::string sd = r.second ? tex_bracket(*r.second) : "--";
    if (r.degenerate) sd += " \\textbf{degenerate:} " + tex_escape(r.degenerate_why);
    const std::string m = best.mark(i);
    os << tex_num(r.config.budget) << " & " << arch_name(p.arch) << (p.residual ? " (res.)" : "") << " & "
       << shape_text(p) << " & " << tex_num(std::to_string(p.tokens)) << " & " << tex_num(r.params) << " & "
       << tex_escape(r.params_text) << " & " << tex_bracket(r) << " & " << status_name(r.status) << " & " << l3 << " & "
       << (m.empty() ? "" : "\\textbf{" + m + "}") << " & " << sd;
    for (const auto& id : cols.ids) {
      const BoundCell* b = cell_for(r, id);
      std::string c = b ? tex_bound_value(b->value) + (b->in_regime ? "" : "\\textsuperscript{\\dag}") : "";
      if (b && b->violated) c = "\\textbf{" + c + " (violated)}";
      os << " & " << c;
    }
    os << " \\\\\n";
  }
  os << "\\bottomrule\n\\end{tabular}" << tex_fit_end() << "% sep: certified bracket of y[0][0]; log3 sep: of the certified lower end; best: "
        "the architecture's largest certified lower end at this budget; 2nd draw: an independent generic draw.\n";
  if (!cols.ids.empty()) os << "% \\dag: outside the bound's regime condition.\n";
  if (const std::string v = row_versions(rows); !v.empty()) os << "% Measured by netpoly " << tex_comment(v) << ".\n";
}

}  // namespace

std::string render_budget_table(const std::vector<TableRow>& rows_in, TableFormat f, const std::string& title,
                                const TableView& view) {
  std::vector<TableRow> rows = rows_in;
  std::sort(rows.begin(), rows.end(), [](const TableRow& a, const TableRow& b) { return a.config.index < b.config.index; });
  const Best best(rows);
  // With --bounds, one column per chosen bound instead of the bounds cell.
  const BoundColumns cols = view.bounds.empty() ? BoundColumns{} : bound_columns(rows, view);
  std::ostringstream os;
  if (f == TableFormat::csv) budget_csv(os, rows, best, cols);
  else if (f == TableFormat::md) budget_md(os, rows, best, cols, title);
  else budget_latex(os, rows, best, cols, title);
  return os.str();
}

}  // namespace netpoly
