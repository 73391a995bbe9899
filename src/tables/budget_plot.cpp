// The plot of an equal-budget comparison: log3 of the certified lower end
// against the parameter count, one colour per architecture (a bar up to the
// upper end; a line through each budget's best shape), and dashed, the
// smallest upper bound in regime of that best shape (among the chosen bounds
// with --bounds). What leaves the y range is clipped and named.
#include <algorithm>
#include <cmath>
#include <map>

#include "netpoly/table.hpp"
#include "plot_frame.hpp"
#include "render_text.hpp"

namespace netpoly {

using namespace tables_detail;

namespace {

struct BudgetPt {
  double x, lo, hi;
  bool exact;
};

struct BudgetData {
  std::map<std::string, std::vector<BudgetPt>> pts;
  std::map<std::string, std::map<std::string, std::pair<double, double>>> best;   // arch -> budget -> (x, lo)
  std::map<std::string, std::map<std::string, std::pair<double, double>>> bound;  // arch -> budget -> (x, log3)
  double xmax = 1, ymax = 1;
};

BudgetData collect_budget(const std::vector<TableRow>& rows, const TableView& view) {
  BudgetData d;
  for (const auto& r : rows) {
    if (r.status == BracketStatus::error || !r.lower.value) continue;
    const std::string a = arch_name(r.config.params.arch);
    const double x = std::stod(r.params), lo = std::max(0.0, log3_of(*r.lower.value));
    const double hi = r.upper.value ? std::max(lo, log3_of(*r.upper.value)) : lo;
    d.pts[a].push_back({x, lo, hi, r.status == BracketStatus::exact});
    d.xmax = std::max(d.xmax, x);
    d.ymax = std::max(d.ymax, lo);
    auto& b = d.best[a][r.config.budget];
    if (b.second < lo || b.first == 0) {
      b = {x, lo};
      double ub = HUGE_VAL;
      for (const auto& c : r.bounds) {
        const bool chosen = view.bounds.empty() || std::find(view.bounds.begin(), view.bounds.end(), c.id) != view.bounds.end();
        if (chosen && c.kind == "upper" && c.in_regime && c.defined && !std::isnan(c.log3)) ub = std::min(ub, c.log3);
      }
      if (ub < HUGE_VAL) d.bound[a][r.config.budget] = {x, ub};
      else d.bound[a].erase(r.config.budget);
    }
  }
  return d;
}

}  // namespace

Plot render_budget_plot(const std::vector<TableRow>& rows, const std::string& title, PlotFormat f,
                        const TableView& view) {
  const BudgetData d = collect_budget(rows, view);
  const double ytop = std::ceil(d.ymax * 1.5 + 1), xtop = d.xmax * 1.05;
  const std::string ylabel = "log3 sep";
  ClipLog clipped;
  for (const auto& [a, ps] : d.pts)
    for (const auto& q : ps)
      if (q.hi > ytop)
        clipped.add("the measured bracket of " + a + " at " + std::to_string(static_cast<long>(q.x)) + " params", "", true);
  for (const auto& [a, bs] : d.bound)
    for (const auto& [b, p] : bs)
      if (p.second > ytop || p.second < 0) clipped.add(a + ": smallest upper bound", "", p.second > ytop);
  FrameSpec spec;
  spec.format = f;
  spec.title = title;
  spec.xlabel = "parameters";
  spec.ylabel = ylabel + " (certified lower end)";
  spec.xmin = 0;
  spec.xmax = xtop;
  spec.ytop = ytop;
  const double xstep = std::pow(10.0, std::floor(std::log10(xtop / 2)));
  for (double x = 0; x <= xtop + 1e-9; x += xstep * (xtop / xstep > 10 ? 2 : 1)) spec.xticks.push_back(x);
  const PlotStyle st = plot_style(f);
  std::size_t si = 0;
  for (const auto& [a, ps] : d.pts) {
    const Rgb col = series_colour(si);
    spec.legend.push_back({a + " (best per budget)", styled(st, col, 2), si++});  // each architecture its marker
    if (auto it = d.bound.find(a); it != d.bound.end() && !it->second.empty())  // product has none (AO eq. (3) is an order)
      spec.legend.push_back({a + ": smallest upper bound", styled(st, col, 1, dash_pattern(0))});
  }
  spec.legend.push_back({"filled: exact; open: bracket (bar to the upper end)", std::nullopt});
  if (!clipped.empty()) spec.notes.push_back(clipped.note(ylabel, ytop, 0));
  PlotFrame frame(spec);
  Canvas& c = frame.canvas();
  si = 0;
  for (const auto& [a, ps] : d.pts) {
    const Rgb col = series_colour(si++);
    std::vector<Point> line, ub;
    for (const auto& [b, p] : d.best.at(a)) line.push_back({p.first, p.second});
    if (auto it = d.bound.find(a); it != d.bound.end())
      for (const auto& [b, p] : it->second) ub.push_back({p.first, p.second});
    std::sort(line.begin(), line.end());
    std::sort(ub.begin(), ub.end());
    for (auto& p : line) p = {frame.X(p.first), frame.Y(p.second)};
    for (auto& p : ub) p = {frame.X(p.first), frame.Y(p.second)};
    frame.clip_to_plot();
    for (const auto& q : ps)
      if (q.hi > q.lo + 1e-9) c.polyline({{frame.X(q.x), frame.Y(q.lo)}, {frame.X(q.x), frame.Y(q.hi)}}, styled(st, col, 2));
    c.polyline(ub, styled(st, col, 1, dash_pattern(0)), a + ": smallest upper bound");
    c.unclip();
    c.polyline(line, styled(st, col, 1.5), a + " (best per budget)");
    for (const auto& q : ps)
      c.marker({frame.X(q.x), frame.Y(q.lo)}, si - 1, 3 * st.unit, styled(st, col, 1), q.exact ? col : Rgb{255, 255, 255});
  }
  return {frame.finish(), clipped.lines(ylabel, ytop)};
}

}  // namespace netpoly
