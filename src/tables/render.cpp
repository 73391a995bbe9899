// A sweep's table in markdown, CSV, LaTeX (booktabs, numbers for siunitx) and
// JSON, with the bound columns a view chooses (--bounds). The equal-budget
// forms are budget.cpp's.
#include <algorithm>
#include <sstream>

#include "netpoly/error.hpp"
#include "netpoly/table.hpp"
#include "render_text.hpp"

namespace netpoly {

using json = nlohmann::json;
using namespace tables_detail;

namespace {

// The items of flag's comma list, trimmed, in order; `check` is called on
// each (and throws for an unknown name, or for an empty one, called with "");
// a repeated item is refused.
template <class Check>
std::vector<std::string> list_items(const char* flag, const std::string& list, Check check) {
  std::vector<std::string> items;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    // An empty name ("L,,d", a trailing comma) is refused, never read as
    // "all"; a name given twice is refused, never dropped.
    if (item.empty()) check(item);
    if (std::find(items.begin(), items.end(), item) != items.end())
      throw InputError(std::string(flag) + " \"" + printable(list) + "\": \"" + printable(item) + "\" is given twice");
    check(item);
    items.push_back(item);
  }
  // getline gives no item after a trailing comma ("L,d,"): that empty name too.
  if (const auto last = list.find_last_not_of(" \t"); last != std::string::npos && list[last] == ',') check("");
  return items;
}

}  // namespace

std::vector<std::string> parse_bound_ids(const std::string& list) {
  const auto known = bound_ids();
  const auto ids = list_items("--bounds", list, [&](const std::string& id) {
    if (id.empty())
      throw InputError("--bounds \"" + printable(list) + "\": an empty bound id (ids are separated by commas; none may be empty)");
    if (std::find(known.begin(), known.end(), id) == known.end()) {
      std::string all;
      for (const auto& k : known) all += (all.empty() ? "" : ", ") + k;
      throw InputError("--bounds: unknown bound id \"" + id + "\"; the registry's ids: " + all);
    }
  });
  if (ids.empty()) throw InputError("--bounds: expected bound ids separated by commas, e.g. \"LV Thm 3,LV Thm 4\"");
  return ids;
}

void check_bound_ids_apply(const std::vector<std::string>& ids, const std::vector<NetworkShape>& shapes) {
  std::vector<std::string> apply;  // the ids of every shape, in registry order of appearance
  for (const auto& p : shapes) {
    std::vector<Bound> bs;
    try {
      bs = compute_bounds(p);
    } catch (const InputError&) {
      continue;  // a shape without bounds (it is an error row)
    }
    for (const auto& b : bs)
      if (std::find(apply.begin(), apply.end(), b.id) == apply.end()) apply.push_back(b.id);
  }
  for (const auto& id : ids)
    if (std::find(apply.begin(), apply.end(), id) == apply.end()) {
      std::string all;
      for (const auto& a : apply) all += (all.empty() ? "" : ", ") + a;
      throw InputError("--bounds: \"" + id + "\" applies to none of the table's shapes; the bounds that do: " + all);
    }
}

namespace {

// k: the block degree (product, and attention sweeps with --degree).
std::vector<std::string> config_columns(Arch a, bool k) {
  std::vector<std::string> c{"L", "d"};
  if (a == Arch::attention) c.push_back("H");
  if (a != Arch::mlp) c.push_back("N");
  if (k) c.push_back("k");
  c.push_back("seed");
  return c;
}

// The columns after the shape's: the measurement's (the bound columns follow, chosen by --bounds).
const std::vector<std::string> kRowColumns{"params", "sep", "status", "second_draw"};

// A row's cell in a column of config_columns or kRowColumns, before format escaping (numbers as digits).
std::string config_value(const TableRow& r, const std::string& col) {
  const auto& p = r.config.params;
  if (col == "L") return std::to_string(p.layers);
  if (col == "d") return std::to_string(p.width);
  if (col == "H") return std::to_string(p.heads);
  if (col == "N") return std::to_string(p.tokens);
  if (col == "k") return std::to_string(p.block_degree());
  if (col == "seed") return std::to_string(r.config.seed);
  return r.params;
}

bool shape_column(const std::string& col) {
  return std::find(kRowColumns.begin(), kRowColumns.end(), col) == kRowColumns.end();
}
// Right-aligned: the shape's numbers and the parameter count.
bool right_aligned(const std::string& col) { return shape_column(col) || col == "params" || col == "sep"; }

// The k column: product blocks, and attention blocks of another degree than LV's 3.
bool k_column(Arch arch, const std::vector<NetworkShape>& shapes) {
  if (arch != Arch::attention && arch != Arch::product) return false;
  bool k = arch == Arch::product;
  for (const auto& p : shapes) k = k || p.block_degree() != 3;
  return k;
}

std::string kind_mark(const std::string& kind) {
  if (kind == "upper") return "<=";
  if (kind == "lower") return ">=";
  if (kind == "degree") return "deg";
  return "Theta";
}

std::string tex_kind_mark(const std::string& kind) {
  if (kind == "upper") return "\\(\\le\\)";
  if (kind == "lower") return "\\(\\ge\\)";
  if (kind == "degree") return "degree";
  return "\\(\\Theta\\)";
}

std::string md_value(const BoundCell& b) {
  std::string v = b.value;
  if (!b.in_regime) v += " †";
  if (b.violated) v = "**" + v + " VIOLATED**";
  return v;
}

std::string tex_value(const BoundCell& b) {
  std::string v = tex_bound_value(b.value);
  if (!b.in_regime) v += "\\textsuperscript{\\dag}";
  if (b.violated) v = "\\textbf{" + v + " (violated)}";
  return v;
}

// The JSON form: every row (timings apart, so reruns compare byte for byte).
std::string render_json(const std::vector<TableRow>& rows, const std::string& title) {
  json j;
  j["title"] = title;
  j["rows"] = json::array();
  json timings = json::object();
  for (const auto& r : rows) {
    json x = r.to_json();
    x.erase("seconds");
    j["rows"].push_back(x);
    timings[r.config.key()] = r.seconds;
  }
  j["timings"] = timings;
  return j.dump(1) + "\n";
}

// What the md and LaTeX forms share: the columns and the notes' conditions.
struct Layout {
  bool k_col = false, any_draw = false, any_violation = false, any_out = false;
  std::vector<std::string> cols;  // config_columns and kRowColumns, in the order shown
  std::vector<std::string> fixed;  // "H = 1": the shape's columns left out because no row differs
  BoundColumns bounds;
  std::string versions;
};

Layout layout(const std::vector<TableRow>& rows, const TableView& view) {
  Layout l;
  const Arch arch = rows.empty() ? Arch::attention : rows[0].config.params.arch;
  std::vector<NetworkShape> shapes;
  for (const auto& r : rows) shapes.push_back(r.config.params);
  l.k_col = k_column(arch, shapes);
  l.bounds = bound_columns(rows, view);
  for (const auto& r : rows) {
    l.any_draw = l.any_draw || r.second || r.degenerate;
    for (const auto& id : l.bounds.ids)
      if (const BoundCell* b = cell_for(r, id)) {
        l.any_violation = l.any_violation || b->violated;
        l.any_out = l.any_out || !b->in_regime;
      }
  }
  l.versions = row_versions(rows);
  if (!view.columns.empty()) {
    l.cols = view.columns;
  } else if (view.all_columns) {
    l.cols = config_columns(arch, l.k_col);
    for (const auto& c : kRowColumns)
      if (c != "second_draw" || l.any_draw) l.cols.push_back(c);
  } else {
    // A paper's: the shape's columns that vary (the others named once, in
    // the notes), sep and status, the second draw only where one disagreed.
    for (const auto& c : config_columns(arch, l.k_col)) {
      bool varies = false;
      for (const auto& r : rows) varies = varies || config_value(r, c) != config_value(rows[0], c);
      if (varies) l.cols.push_back(c);
      else if (!rows.empty()) l.fixed.push_back(c + " = " + config_value(rows[0], c));
    }
    if (l.cols.empty() && !rows.empty()) {  // one row: its depth, for a table that still reads as one
      l.cols.push_back("L");
      l.fixed.erase(l.fixed.begin());
    }
    l.cols.push_back("sep");
    l.cols.push_back("status");
    bool degenerate = false;
    for (const auto& r : rows) degenerate = degenerate || r.degenerate;
    if (degenerate) l.cols.push_back("second_draw");
  }
  return l;
}

bool shows(const Layout& l, const std::string& col) { return std::find(l.cols.begin(), l.cols.end(), col) != l.cols.end(); }

std::string md_cell(const TableRow& r, const std::string& col) {
  if (col == "sep") return r.table_text();
  if (col == "status") return status_name(r.status);
  if (col == "second_draw") {
    std::string c = r.second ? r.second_draw_text() : "-";
    if (r.degenerate) c += " **degenerate: " + md_escape(r.degenerate_why) + "**";
    return c;
  }
  return config_value(r, col);
}

std::string tex_cell(const TableRow& r, const std::string& col) {
  if (col == "sep") return tex_bracket(r);
  if (col == "status") return status_name(r.status);
  if (col == "second_draw") {
    std::string c = r.second ? tex_bracket(*r.second) : "--";
    if (r.degenerate) c += " \\textbf{degenerate:} " + tex_escape(r.degenerate_why);
    return c;
  }
  return tex_num(config_value(r, col));
}

std::string column_head(const std::string& col, bool tex) {
  if (col == "second_draw") return "2nd draw";
  if (!tex || col == "seed" || !shape_column(col)) return col;
  return "\\(" + col + "\\)";
}

void render_md(std::ostream& os, const std::vector<TableRow>& rows, const Layout& l, const std::string& title) {
  const auto& ids = l.bounds.ids;
  if (!title.empty()) os << "**" << md_escape(title) << "**\n\n";
  os << "|";
  for (const auto& c : l.cols) os << " " << column_head(c, false) << " |";
  for (std::size_t k = 0; k < ids.size(); ++k) os << " " << md_escape(ids[k]) << " (" << kind_mark(l.bounds.kinds[k]) << ") |";
  os << "\n|";
  for (const auto& c : l.cols) os << (right_aligned(c) ? "---:|" : "---|");
  for (std::size_t k = 0; k < ids.size(); ++k) os << "---|";
  os << "\n";
  for (const auto& r : rows) {
    os << "|";
    for (const auto& c : l.cols) os << " " << md_cell(r, c) << " |";
    for (const auto& id : ids) {
      const BoundCell* b = cell_for(r, id);
      os << " " << (b ? md_value(*b) : "") << " |";
    }
    os << "\n";
  }
  os << "\n";
  if (!l.fixed.empty()) {
    os << "In every row:";
    for (std::size_t k = 0; k < l.fixed.size(); ++k) os << (k ? ", " : " ") << l.fixed[k];
    os << ". ";
  }
  os << "sep: exact = certified equal; (prob.) = certified lower bound, equal with high probability; [a, b] = certified bracket.";
  if (l.any_out) os << " † = the bound's regime condition does not hold here.";
  if (l.any_violation) os << " VIOLATED = a certified measurement contradicts the bound.";
  if (shows(l, "second_draw")) os << " 2nd draw: the same shape with an independent generic draw of weights.";
  if (!l.versions.empty()) os << " Measured by netpoly " << md_escape(l.versions) << ".";
  os << "\n";
  // Each open row's stop and the flag that lifts it.
  for (const auto& r : rows)
    if (!r.stop.empty()) os << "\nOpen: " << md_escape(r.config.key()) << ": " << md_escape(r.stop) << "\n";
}

void render_csv(std::ostream& os, const std::vector<TableRow>& rows, const Layout& l) {
  std::vector<std::string> head{"arch", "layers", "width", "heads", "tokens", "degree", "residual", "seed",
                                "params", "lower", "lower_method", "upper", "upper_method", "status",
                                "second_draw", "degenerate", "netpoly_version"};
  for (const auto& id : l.bounds.ids)
    for (const char* suffix : {"", " log3", " in_regime", " violated"}) head.push_back(id + suffix);
  for (std::size_t k = 0; k < head.size(); ++k) os << (k ? "," : "") << csv_quote(head[k]);
  os << "\n";
  for (const auto& r : rows) {
    const auto& p = r.config.params;
    std::vector<std::string> v{arch_name(p.arch), std::to_string(p.layers), std::to_string(p.width),
                               std::to_string(p.heads), std::to_string(p.tokens), std::to_string(p.block_degree()),
                               p.residual ? "true" : "false", std::to_string(r.config.seed), r.params,
                               r.lower.value ? std::to_string(*r.lower.value) : "", r.lower.method,
                               r.upper.value ? std::to_string(*r.upper.value) : "", r.upper.method,
                               status_name(r.status), r.second_draw_text(), r.degenerate_why, r.version};
    for (const auto& id : l.bounds.ids) {
      const BoundCell* b = cell_for(r, id);
      append_bound_csv(v, b);
    }
    for (std::size_t k = 0; k < v.size(); ++k) os << (k ? "," : "") << csv_quote(v[k]);
    os << "\n";
  }
}

// LaTeX: a tabular with booktabs rules; every number in \num{} (siunitx), a
// log3 value as \(3^{\num{x}}\). Needs \usepackage{booktabs,siunitx}; fitted
// to \linewidth with graphicx (tex_fit_begin).
void render_latex(std::ostream& os, const std::vector<TableRow>& rows, const Layout& l, const std::string& title) {
  const auto& ids = l.bounds.ids;
  os << "% " << tex_comment(title) << "\n% netpoly table; " << kTexNeeds << "\n" << tex_fit_begin();
  os << "\\begin{tabular}{";
  for (const auto& c : l.cols) os << (right_aligned(c) ? 'r' : 'l');
  os << std::string(ids.size(), 'r') << "}\n\\toprule\n";
  for (std::size_t k = 0; k < l.cols.size(); ++k) os << (k ? " & " : "") << column_head(l.cols[k], true);
  for (std::size_t k = 0; k < ids.size(); ++k)
    os << (k || !l.cols.empty() ? " & " : "") << tex_escape(ids[k]) << " (" << tex_kind_mark(l.bounds.kinds[k]) << ")";
  os << " \\\\\n\\midrule\n";
  for (const auto& r : rows) {
    for (std::size_t k = 0; k < l.cols.size(); ++k) os << (k ? " & " : "") << tex_cell(r, l.cols[k]);
    for (std::size_t k = 0; k < ids.size(); ++k) {
      const BoundCell* b = cell_for(r, ids[k]);
      os << (k || !l.cols.empty() ? " & " : "") << (b ? tex_value(*b) : "");
    }
    os << " \\\\\n";
  }
  os << "\\bottomrule\n\\end{tabular}" << tex_fit_end();
  if (!l.fixed.empty()) {
    os << "% In every row:";
    for (std::size_t k = 0; k < l.fixed.size(); ++k) os << (k ? ", " : " ") << l.fixed[k];
    os << ".\n";
  }
  os << "% sep: exact = certified equal; (prob.) = certified lower bound, equal with high probability; [a, b] = "
        "certified bracket.\n";
  if (l.any_out) os << "% \\dag: the bound's regime condition does not hold for this row.\n";
  if (l.any_violation) os << "% (violated): a certified measurement contradicts the bound.\n";
  if (shows(l, "second_draw")) os << "% 2nd draw: the same shape with an independent generic draw of weights.\n";
  if (!l.versions.empty()) os << "% Measured by netpoly " << tex_comment(l.versions) << ".\n";
  for (const auto& r : rows)
    if (!r.stop.empty()) os << "% Open: " << tex_comment(r.config.key()) << ": " << tex_comment(r.stop) << "\n";
}

}  // namespace

std::vector<std::string> parse_table_columns(const std::string& list, const std::vector<NetworkShape>& shapes) {
  const Arch arch = shapes.empty() ? Arch::attention : shapes[0].arch;
  std::vector<std::string> known = config_columns(arch, k_column(arch, shapes));
  known.insert(known.end(), kRowColumns.begin(), kRowColumns.end());
  const auto cols = list_items("--columns", list, [&](const std::string& c) {
    if (c.empty())
      throw InputError("--columns \"" + printable(list) +
                       "\": an empty column name (names are separated by commas; none may be empty)");
    if (std::find(known.begin(), known.end(), c) == known.end()) {
      std::string all;
      for (const auto& k : known) all += (all.empty() ? "" : ",") + k;
      throw InputError("--columns: \"" + printable(c) + "\" is no column of this " + arch_name(arch) +
                       " table; its columns: " + all + " (the bound columns: --bounds)");
    }
  });
  if (cols.empty()) throw InputError("--columns: expected column names separated by commas, e.g. \"L,d,H,sep\"");
  return cols;
}

std::string render_table(const std::vector<TableRow>& rows_in, TableFormat f, const std::string& title,
                         const TableView& view) {
  if (f != TableFormat::json && !rows_in.empty() && !rows_in[0].config.budget.empty())
    return render_budget_table(rows_in, f, title, view);
  std::vector<TableRow> rows = rows_in;
  std::sort(rows.begin(), rows.end(), [](const TableRow& a, const TableRow& b) { return a.config.index < b.config.index; });
  if (f == TableFormat::json) return render_json(rows, title);
  const Layout l = layout(rows, view);
  std::ostringstream os;
  if (f == TableFormat::md) render_md(os, rows, l, title);
  else if (f == TableFormat::csv) render_csv(os, rows, l);
  else render_latex(os, rows, l, title);
  return os.str();
}

}  // namespace netpoly
