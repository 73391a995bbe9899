#include "netpoly/table.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "netpoly/context.hpp"
#include "netpoly/error.hpp"
#include "netpoly/parallel.hpp"
#include "netpoly/presets.hpp"
#include "render_text.hpp"

namespace netpoly {

using json = nlohmann::json;
using tables_detail::csv_quote, tables_detail::log3_of, tables_detail::tex_escape;

std::string SweepConfig::key() const {
  return (budget.empty() ? "" : "B=" + budget + " ") + shape_label(params, LabelStyle::table_key) +
         " seed=" + std::to_string(seed);
}

std::vector<SweepConfig> sweep_configs(const SweepSpec& s) {
  if (!s.budgets.empty()) return budget_configs(s);
  const bool att = s.arch == Arch::attention, mlp = s.arch == Arch::mlp, prod = s.arch == Arch::product;
  const std::vector<std::uint64_t> one{1};
  const auto& heads = att ? s.heads : one;
  const auto& tokens = mlp ? one : s.tokens;
  // Attention: 0 (LV's degree-3 attention, the rows' keys as always) unless --degree asks for blocks.
  const std::vector<std::uint64_t> degrees = (prod || att) && !s.degrees.empty() ? s.degrees : std::vector<std::uint64_t>{0};
  std::vector<SweepConfig> r;
  for (auto L : s.layers)
    for (auto d : s.widths)
      for (auto H : heads)
        for (auto N : tokens)
          for (auto k : degrees) {
            if (att && (H == 0 || d % H != 0)) continue;
            for (std::uint64_t seed = 1; seed <= s.seeds; ++seed) {
              SweepConfig c;
              c.params = {s.arch, L, d, att ? H : 1, N, (att && k == 3) || (prod && k == 2) ? 0 : k, s.residual && !prod};
              c.seed = seed;
              c.index = r.size();
              r.push_back(c);
            }
          }
  return r;
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
  write_row_json(j);
  if (!second_draw.empty()) j["second_draw"] = second_draw;
  if (degenerate) j["degenerate"] = degenerate_why;
  json bs = json::array();
  for (const auto& b : bounds) {
    json x = {{"id", b.id},         {"kind", b.kind},         {"value", b.value}, {"log3", b.defined ? json(b.log3) : json(nullptr)},
              {"in_regime", b.in_regime}, {"defined", b.defined}, {"violated", b.violated}};
    x["exact"] = b.exact ? json(*b.exact) : json(nullptr);
    if (!std::isfinite(b.log3) && b.defined) x["log3"] = b.log3 > 0 ? "inf" : "-inf";
    bs.push_back(x);
  }
  j["bounds"] = bs;
  j["seconds"] = seconds;
  j["options"] = options;
  j["sweep"] = sweep;
  return j;
}

TableRow TableRow::from_json(const json& j) {
  TableRow r;
  const auto& c = j.at("config");
  r.config.index = j.at("index").get<std::size_t>();
  r.config.params = {parse_arch(c.at("arch").get<std::string>()), c.at("layers").get<std::uint64_t>(),
                     c.at("width").get<std::uint64_t>(), c.at("heads").get<std::uint64_t>(),
                     c.at("tokens").get<std::uint64_t>(), c.at("degree").get<std::uint64_t>(),
                     c.at("residual").get<bool>()};
  r.config.seed = c.at("seed").get<std::uint64_t>();
  // Journals before degree-k attention blocks stored 2 for attention rows; their keys have no k.
  if (r.config.params.arch == Arch::attention && j.value("key", std::string()).find(" k=") == std::string::npos)
    r.config.params.degree = 0;
  r.config.budget = j.value("budget", std::string());
  r.params = j.at("params").get<std::string>();
  r.second_draw = j.value("second_draw", std::string());
  if (j.contains("degenerate")) {
    r.degenerate = true;
    r.degenerate_why = j["degenerate"].get<std::string>();
  }
  static_cast<Bracket&>(r) = Bracket::from_row_json(j);
  for (const auto& x : j.at("bounds")) {
    BoundCell b;
    b.id = x.at("id").get<std::string>();
    b.kind = x.at("kind").get<std::string>();
    b.value = x.at("value").get<std::string>();
    if (!x.at("exact").is_null()) b.exact = x["exact"].get<std::string>();
    const auto& l = x.at("log3");
    b.log3 = l.is_number() ? l.get<double>() : l.is_string() ? (l == "inf" ? HUGE_VAL : -HUGE_VAL) : NAN;
    b.in_regime = x.at("in_regime").get<bool>();
    b.defined = x.value("defined", true);
    b.violated = x.at("violated").get<bool>();
    r.bounds.push_back(b);
  }
  r.seconds = j.value("seconds", 0.0);
  r.options = j.value("options", json(nullptr));
  r.sweep = j.value("sweep", json(nullptr));
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

TableRow measure_row(const SweepConfig& c, const SweepSpec& s) {
  auto t0 = std::chrono::steady_clock::now();
  TableRow row;
  row.config = c;
  const auto& p = c.params;
  const PresetOptions po = preset_options(p, c.seed, s.range, s.weights);
  Model m = make_preset(po);
  row.params = std::to_string(parameter_count(m));
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
  auto rs = analyse_network(m, {Entry{0, 0}}, {P}, s.sep, {}, draw_context());
  const auto& r = rs.at(0);
  static_cast<Bracket&>(row) = r;
  if (r.status == BracketStatus::exact && r.upper.value && *r.upper.value == 0) {
    row.degenerate = true;
    row.degenerate_why = "y[0][0] is identically 0";
  }
  if (s.weights == WeightDist::generic) {
    // A second independent draw: the generic rank is the same for almost every
    // draw, so certified brackets that do not meet mean one draw was special.
    const Bracket b = analyse_network(make_preset(second_draw(po)), {Entry{0, 0}}, {P}, s.sep, {}, draw_context()).at(0);
    row.second_draw = b.table_text();
    const bool apart = (r.lower.value && b.upper.value && *r.lower.value > *b.upper.value) ||
                       (b.lower.value && r.upper.value && *b.lower.value > *r.upper.value);
    if (apart && !row.degenerate) {
      row.degenerate = true;
      row.degenerate_why = "a second generic draw measures " + b.table_text() + ", this one " + r.table_text();
    }
  }
  for (const auto& b : compute_bounds(p)) {
    BoundCell cell;
    cell.id = b.id;
    cell.kind = bound_kind_name(b.kind);
    cell.value = format_value(b, 12);
    if (b.exact) cell.exact = b.exact->str();
    cell.log3 = b.log3;
    cell.in_regime = b.in_regime;
    cell.defined = b.defined;
    row.bounds.push_back(cell);
  }
  flag_violations(row);
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return row;
}

TableFormat parse_table_format(const std::string& s) {
  if (s == "md" || s == "markdown") return TableFormat::md;
  if (s == "csv") return TableFormat::csv;
  if (s == "latex" || s == "tex") return TableFormat::latex;
  if (s == "json") return TableFormat::json;
  throw InputError("--format: expected md, csv, latex or json, got \"" + s + "\"");
}

TableFormat table_format_for(const std::string& path) {
  auto dot = path.rfind('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  if (ext == "csv") return TableFormat::csv;
  if (ext == "tex") return TableFormat::latex;
  if (ext == "json") return TableFormat::json;
  return TableFormat::md;
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

std::vector<std::string> config_values(const TableRow& r, bool k) {
  const auto& p = r.config.params;
  std::vector<std::string> v{std::to_string(p.layers), std::to_string(p.width)};
  if (p.arch == Arch::attention) v.push_back(std::to_string(p.heads));
  if (p.arch != Arch::mlp) v.push_back(std::to_string(p.tokens));
  if (k) v.push_back(std::to_string(p.block_degree()));
  v.push_back(std::to_string(r.config.seed));
  return v;
}

std::string kind_mark(const std::string& kind) {
  if (kind == "upper") return "<=";
  if (kind == "lower") return ">=";
  if (kind == "degree") return "deg";
  return "Theta";
}

std::string tex_value(const BoundCell& b) {
  std::string v = b.value;
  if (v.rfind("3^", 0) == 0) v = "$3^{" + v.substr(2) + "}$";
  else v = tex_escape(v);
  if (!b.in_regime) v += "\\textsuperscript{\\dag}";
  if (b.violated) v = "\\textbf{" + v + " (violated)}";
  return v;
}

std::string md_value(const BoundCell& b) {
  std::string v = b.value;
  if (!b.in_regime) v += " †";
  if (b.violated) v = "**" + v + " VIOLATED**";
  return v;
}

}  // namespace

namespace {

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

}  // namespace

std::string render_table(const std::vector<TableRow>& rows_in, TableFormat f, const std::string& title) {
  if (f != TableFormat::json && !rows_in.empty() && !rows_in[0].config.budget.empty())
    return render_budget_table(rows_in, f, title);
  std::vector<TableRow> rows = rows_in;
  std::sort(rows.begin(), rows.end(), [](const TableRow& a, const TableRow& b) { return a.config.index < b.config.index; });
  if (f == TableFormat::json) return render_json(rows, title);
  std::ostringstream os;
  const Arch arch = rows.empty() ? Arch::attention : rows[0].config.params.arch;
  bool k_col = arch == Arch::product;
  for (const auto& r : rows) k_col = k_col || r.config.params.block_degree() != 3;
  if (arch != Arch::attention && arch != Arch::product) k_col = false;
  std::vector<std::string> cols = config_columns(arch, k_col);
  std::vector<std::string> ids;
  std::vector<std::string> kinds;
  for (const auto& r : rows)
    for (const auto& b : r.bounds)
      if (std::find(ids.begin(), ids.end(), b.id) == ids.end()) {
        ids.push_back(b.id);
        kinds.push_back(b.kind);
      }
  auto cell_for = [&](const TableRow& r, const std::string& id) -> const BoundCell* {
    for (const auto& b : r.bounds)
      if (b.id == id) return &b;
    return nullptr;
  };
  bool any_violation = false, any_out = false, any_draw = false;
  for (const auto& r : rows) any_draw = any_draw || !r.second_draw.empty() || r.degenerate;
  auto draw_cell = [](const TableRow& r) {
    std::string c = r.second_draw.empty() ? "-" : r.second_draw;
    if (r.degenerate) c += " **degenerate: " + r.degenerate_why + "**";
    return c;
  };
  for (const auto& r : rows)
    for (const auto& b : r.bounds) {
      any_violation = any_violation || b.violated;
      any_out = any_out || !b.in_regime;
    }
  if (f == TableFormat::md) {
    if (!title.empty()) os << "**" << title << "**\n\n";
    os << "|";
    for (const auto& c : cols) os << " " << c << " |";
    os << " params | sep | status |" << (any_draw ? " 2nd draw |" : "");
    for (std::size_t k = 0; k < ids.size(); ++k) os << " " << ids[k] << " (" << kind_mark(kinds[k]) << ") |";
    os << "\n|";
    for (std::size_t k = 0; k < cols.size() + 3 + (any_draw ? 1 : 0) + ids.size(); ++k)
      os << (k < cols.size() + 1 ? "---:|" : "---|");
    os << "\n";
    for (const auto& r : rows) {
      os << "|";
      for (const auto& v : config_values(r, k_col)) os << " " << v << " |";
      os << " " << r.params << " | " << r.table_text() << " | " << status_name(r.status) << " |";
      if (any_draw) os << " " << draw_cell(r) << " |";
      for (const auto& id : ids) {
        const BoundCell* b = cell_for(r, id);
        os << " " << (b ? md_value(*b) : "") << " |";
      }
      os << "\n";
    }
    os << "\nsep: exact = certified equal; (prob.) = certified lower bound, equal with high probability; [a, b] = certified bracket.";
    if (any_out) os << " † = the bound's regime condition does not hold here.";
    if (any_violation) os << " VIOLATED = a certified measurement contradicts the bound.";
    if (any_draw) os << " 2nd draw: the same shape with an independent generic draw of weights.";
    os << "\n";
  } else if (f == TableFormat::csv) {
    std::vector<std::string> head{"arch", "layers", "width", "heads", "tokens", "degree", "residual", "seed",
                                  "params", "lower", "lower_method", "upper", "upper_method", "status",
                                  "second_draw", "degenerate"};
    for (const auto& id : ids)
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
                                 status_name(r.status), r.second_draw, r.degenerate_why};
      for (const auto& id : ids) {
        const BoundCell* b = cell_for(r, id);
        char l3[64] = "";
        if (b && b->defined) std::snprintf(l3, sizeof l3, "%.10g", b->log3);
        v.push_back(b ? (b->exact ? *b->exact : b->value) : "");
        v.push_back(l3);
        v.push_back(b ? (b->in_regime ? "true" : "false") : "");
        v.push_back(b ? (b->violated ? "true" : "false") : "");
      }
      for (std::size_t k = 0; k < v.size(); ++k) os << (k ? "," : "") << csv_quote(v[k]);
      os << "\n";
    }
  } else {  // latex (booktabs)
    os << "% " << tex_escape(title) << " (netpoly table; needs \\usepackage{booktabs})\n";
    os << "\\begin{tabular}{" << std::string(cols.size() + 1, 'r') << "ll" << std::string(ids.size(), 'r') << "}\n\\toprule\n";
    for (const auto& c : cols) os << "$" << c << "$ & ";
    os << "params & sep & status";
    for (std::size_t k = 0; k < ids.size(); ++k)
      os << " & " << tex_escape(ids[k]) << " (" << (kinds[k] == "upper" ? "$\\le$" : kinds[k] == "lower" ? "$\\ge$" : tex_escape(kinds[k])) << ")";
    os << " \\\\\n\\midrule\n";
    for (const auto& r : rows) {
      for (const auto& v : config_values(r, k_col)) os << v << " & ";
      os << r.params << " & " << tex_escape(r.table_text()) << " & " << status_name(r.status);
      for (const auto& id : ids) {
        const BoundCell* b = cell_for(r, id);
        os << " & " << (b ? tex_value(*b) : "");
      }
      os << " \\\\\n";
    }
    os << "\\bottomrule\n\\end{tabular}\n";
    if (any_out) os << "% \\dag: the bound's regime condition does not hold for this row.\n";
  }
  return os.str();
}

std::vector<TableRow> read_rows(const std::string& path) {
  auto parse_lines = [](std::istream& in, const std::string& src) {
    std::vector<TableRow> rows;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      try {
        rows.push_back(TableRow::from_json(json::parse(line)));
      } catch (const std::exception&) {
        // An interrupted run may leave a torn last line: ignore it.
        (void)src;
      }
    }
    return rows;
  };
  if (path.size() > 6 && path.substr(path.size() - 6) == ".jsonl") {
    std::ifstream in(path);
    if (!in) throw InputError(path + ": cannot open");
    return parse_lines(in, path);
  }
  if (path.size() > 5 && path.substr(path.size() - 5) == ".json") {
    std::ifstream in(path);
    if (!in) throw InputError(path + ": cannot open");
    json j;
    try {
      j = json::parse(in);
    } catch (const json::exception& e) {
      throw InputError(path + ": invalid JSON table: " + e.what());
    }
    std::vector<TableRow> rows;
    try {
      for (const auto& x : j.at("rows")) {
        TableRow r = TableRow::from_json(x);
        if (j.contains("timings") && j["timings"].contains(r.config.key())) r.seconds = j["timings"][r.config.key()];
        rows.push_back(r);
      }
    } catch (const json::exception& e) {
      throw InputError(path + ": not a netpoly table: " + e.what());
    }
    return rows;
  }
  std::ifstream in(path + ".jsonl");
  if (!in) throw InputError(path + ": cannot read its rows (expected a .json table or the journal " + path + ".jsonl)");
  return parse_lines(in, path + ".jsonl");
}


std::vector<TableRow> run_sweep(const SweepSpec& s, const SweepRunOptions& o) {
  if (o.shards == 0 || o.shard == 0 || o.shard > o.shards) throw InputError("--shard K/N: need 1 <= K <= N");
  auto all = sweep_configs(s);
  std::vector<SweepConfig> mine;
  for (const auto& c : all)
    if (c.index % o.shards == o.shard - 1) mine.push_back(c);
  std::set<std::string> wanted;
  for (const auto& c : mine) wanted.insert(c.key());
  const bool to_file = !o.out.empty();
  const std::string journal = o.out + ".jsonl";
  std::vector<TableRow> rows;
  std::set<std::string> have;
  // The journal is locked for the whole run: a second run on it is refused.
  std::unique_ptr<Journal> jf;
  if (to_file) jf = std::make_unique<Journal>(journal, o.resume);
  if (o.resume && to_file) {
    std::vector<TableRow> kept;
    for (const auto& line : jf->lines()) {
      try {
        kept.push_back(TableRow::from_json(json::parse(line)));
      } catch (const std::exception& e) {
        throw InputError(journal + ": not a netpoly table journal line (" + std::string(e.what()) +
                         "); drop --resume to start afresh");
      }
    }
    const json now = s.row_options();
    for (const auto& r : kept) {
      const std::string diff = options_difference(r.options, now);
      if (!diff.empty())
        throw InputError("--resume: the journal " + journal + " holds rows measured with other options (" + diff +
                         "); drop --resume to start afresh, or write to another -o FILE");
    }
    for (auto& r : kept)
      if (wanted.count(r.config.key()) && !have.count(r.config.key())) {
        // the index may differ if the sweep was extended: take the current one
        for (const auto& c : mine)
          if (c.key() == r.config.key()) r.config.index = c.index;
        have.insert(r.config.key());
        rows.push_back(r);
      }
  }
  const std::string title = sweep_title(s);
  if (to_file) {  // rewrite the journal with exactly the kept rows
    std::string text;
    for (const auto& r : rows) text += r.to_json().dump() + "\n";
    jf->rewrite(text);
    write_file_atomic(o.out, render_table(rows, o.format, title));
  }
  std::vector<SweepConfig> todo;
  for (const auto& c : mine)
    if (!have.count(c.key())) todo.push_back(c);
  std::mutex mu;
  std::size_t done = rows.size();
  const std::size_t total = mine.size();
  if (o.progress) o.progress(done, total, "");
  // Each job measures configurations one after another; with several jobs the
  // rank code inside runs single-threaded to avoid oversubscription.
  const unsigned jobs = std::max(1u, o.jobs);
  const unsigned saved_threads = thread_count();
  if (jobs > 1) set_thread_count(1);
  std::atomic<std::size_t> next{0};
  std::exception_ptr err;
  auto work = [&]() {
    for (std::size_t i; (i = next++) < todo.size();) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (err) return;  // another job failed: stop taking work
      }
      TableRow r;
      try {
        r = measure_row(todo[i], s);
        r.options = s.row_options();
        r.sweep = s.sweep_json();
      } catch (const InputError&) {
        std::lock_guard<std::mutex> lock(mu);
        if (!err) err = std::current_exception();
        return;
      } catch (const Error& e) {
        r.config = todo[i];
        r.status = BracketStatus::error;
        r.lower.method = e.what();
        r.options = s.row_options();
        r.sweep = s.sweep_json();
      }
      std::lock_guard<std::mutex> lock(mu);
      rows.push_back(r);
      if (to_file) {
        try {
          jf->append(r.to_json().dump());
          write_file_atomic(o.out, render_table(rows, o.format, title));
        } catch (...) {
          if (!err) err = std::current_exception();
          return;
        }
      }
      ++done;
      if (o.progress) o.progress(done, total, todo[i].key());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < jobs; ++k)
    pool.emplace_back([&work]() {
      work();
      flint_cleanup();  // FLINT's per-thread caches (parallel.cpp)
    });
  work();
  for (auto& t : pool) t.join();
  if (jobs > 1) set_thread_count(saved_threads);
  if (err) std::rethrow_exception(err);
  if (!o.plot.empty()) write_file_atomic(o.plot, render_plot(rows, title));
  std::sort(rows.begin(), rows.end(), [](const TableRow& a, const TableRow& b) { return a.config.index < b.config.index; });
  return rows;
}

}  // namespace netpoly
