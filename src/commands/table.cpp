// netpoly table: sweeps of measured separation ranks against every bound.
#include <unistd.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <algorithm>
#include <set>
#include <sstream>

#include "netpoly/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/limits.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/table.hpp"

namespace netpoly::cli {

namespace {


std::string fmt_duration(double s) {
  long t = static_cast<long>(s + 0.5);
  char b[32];
  if (t >= 3600) std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(b, sizeof b, "%ld:%02ld", t / 60, t % 60);
  return b;
}

// Joins shard tables of one sweep: every row must come from the same sweep
// (same lists and options: refused otherwise, naming the files), every row of
// that sweep must be present (refused otherwise, naming what is missing), and
// the table gets exactly the title an unsharded run gives it.
void run_merge(const TableOptions& o) {
  if (o.out.empty()) throw InputError("--merge needs -o OUT");
  std::vector<TableRow> rows;
  std::set<std::string> keys;
  nlohmann::json sweep;
  std::string sweep_file;
  for (const auto& f : o.merge)
    for (auto& r : read_rows(f)) {
      if (r.sweep.is_null())
        throw InputError(f + ": its rows do not record the sweep they belong to (made by an older netpoly); "
                             "rerun that shard");
      if (sweep.is_null()) {
        sweep = r.sweep;
        sweep_file = f;
      } else if (r.sweep != sweep) {
        throw InputError(f + ": rows of another sweep than " + sweep_file + " (" + r.sweep.dump() + " vs " +
                         sweep.dump() + "); only shards of one sweep can be merged");
      }
      if (keys.insert(r.config.key()).second) rows.push_back(std::move(r));
    }
  if (sweep.is_null()) throw InputError("--merge: no rows in the given files");
  const SweepSpec spec = SweepSpec::from_sweep_json(sweep);
  std::vector<std::string> missing;
  const auto configs = sweep_configs(spec);
  for (const auto& c : configs)
    if (!keys.count(c.key())) missing.push_back(c.key());
  if (!missing.empty()) {
    std::string some;
    for (std::size_t k = 0; k < missing.size() && k < 3; ++k) some += (k ? "; " : "") + missing[k];
    throw InputError("--merge: " + std::to_string(missing.size()) + " of the sweep's " +
                     std::to_string(configs.size()) + " rows are in none of the files (" + some +
                     (missing.size() > 3 ? "; ..." : "") + "): a shard is missing or unfinished");
  }
  for (auto& r : rows)  // the unsharded run's order
    for (const auto& c : configs)
      if (c.key() == r.config.key()) r.config.index = c.index;
  TableFormat f = o.format.empty() ? table_format_for(o.out) : parse_table_format(o.format);
  const std::string title = sweep_title(spec);
  write_file_atomic(o.out, render_table(rows, f, title));
  std::string journal;
  for (const auto& r : rows) journal += r.to_json().dump() + "\n";
  write_file_atomic(o.out + ".jsonl", journal);
  if (!o.plot.empty()) write_file_atomic(o.plot, render_plot(rows, title));
  std::cerr << "merged " << rows.size() << " rows into " << o.out << "\n";
}

// A list option without repeats, in the order given (--width 2,2,2 is one width).
std::vector<std::uint64_t> parse_unique_list(const std::string& s, const std::string& flag) {
  std::vector<std::uint64_t> r;
  for (auto v : parse_list(s, flag))
    if (std::find(r.begin(), r.end(), v) == r.end()) r.push_back(v);
  return r;
}

SweepSpec make_spec(const TableOptions& o) {
  SweepSpec s;
  s.arch = parse_arch(o.arch);
  s.layers = parse_unique_list(o.layers, "--layers");
  s.widths = parse_unique_list(o.width, "--width");
  s.heads = parse_unique_list(o.heads, "--heads");
  s.tokens = parse_unique_list(o.tokens.empty() ? (s.arch == Arch::product ? "1" : "2") : o.tokens, "--tokens");
  s.degrees = parse_unique_list(o.degree, "--degree");
  s.residual = o.residual;
  s.seeds = o.seeds;
  s.range = o.range;
  s.partition = o.partition;
  if (!o.methods.empty()) s.sep.methods = parse_methods(o.methods);
  if (limit_option(o.budget, "--budget", true) > 0) s.sep.budget = o.budget;
  s.sep.max_terms = limit_option(o.max_terms, "--max-terms", false);
  if (s.seeds == 0 || s.seeds > 10000) throw InputError("--seeds: expected 1..10000");
  return s;
}

// Depth-to-width allocation at a parameter budget: the widest shape of each
// depth within the budget, every bound's log3, and the measured rank where
// the expansion is small.
void run_param_budget(const TableOptions& o) {
  SweepSpec s = make_spec(o);
  NetworkShape base{s.arch, 1, 2, s.heads.at(0), s.tokens.at(0), s.degrees.at(0), s.residual};
  Fmpz budget;
  if (!budget.set_str(o.param_budget) || fmpz_sgn(budget.get()) <= 0)
    throw InputError("--param-budget: expected a positive integer, got \"" + o.param_budget + "\"");
  auto pts = depth_width_points(base, budget);
  if (pts.empty()) throw InputError("--param-budget " + o.param_budget + ": no shape fits this budget");
  std::vector<std::string> ids;
  for (const auto& b : pts[0].bounds)
    if (b.kind == BoundKind::upper || b.kind == BoundKind::lower) ids.push_back(b.id);
  std::ostringstream os;
  os << "Depth-to-width allocation: " << arch_name(s.arch) << ", parameter budget " << o.param_budget
     << " (widest width within budget at each depth; values are log3; * marks each column's maximum)\n\n";
  os << "| depth | width | params | log3 d | measured log3 sep |";
  for (const auto& id : ids) os << " " << id << " |";
  os << "\n|---:|---:|---:|---:|---|";
  for (std::size_t k = 0; k < ids.size(); ++k) os << "---|";
  os << "\n";
  std::vector<double> best(ids.size(), -HUGE_VAL);
  std::vector<std::size_t> arg(ids.size(), 0);
  std::vector<std::string> measured(pts.size(), "-");
  double best_meas = -HUGE_VAL;
  std::size_t arg_meas = SIZE_MAX;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    for (std::size_t k = 0; k < ids.size(); ++k)
      for (const auto& b : pts[i].bounds)
        if (b.id == ids[k] && b.defined && b.log3 > best[k]) {
          best[k] = b.log3;
          arg[k] = i;
        }
    NetworkShape shape = base;
    shape.layers = pts[i].depth;
    shape.width = pts[i].width;
    const PresetOptions po = preset_options(shape);
    if (po.shape.arch == Arch::attention && po.shape.width % po.shape.heads) continue;
    Model m = make_preset(po);
    if (estimate_expansion(m).terms <= 2e5) {
      auto r = analyse_network(m, {Entry{0, 0}}, {parse_partition(s.partition, m.tokens, m.width)}, s.sep)[0];
      if (r.lower.value) {
        double v = *r.lower.value ? std::log(static_cast<double>(*r.lower.value)) / std::log(3.0) : 0;
        char b[64];
        std::snprintf(b, sizeof b, "%.3f%s", v, r.status == BracketStatus::exact ? "" : " (lower)");
        measured[i] = b;
        if (r.status == BracketStatus::exact && v > best_meas) {
          best_meas = v;
          arg_meas = i;
        }
      }
    }
  }
  for (std::size_t i = 0; i < pts.size(); ++i) {
    char l3d[32];
    std::snprintf(l3d, sizeof l3d, "%.3f", std::log(static_cast<double>(pts[i].width)) / std::log(3.0));
    os << "| " << pts[i].depth << " | " << pts[i].width << " | " << pts[i].params.str() << " | " << l3d << " | "
       << measured[i] << (i == arg_meas ? " *" : "") << " |";
    for (std::size_t k = 0; k < ids.size(); ++k) {
      std::string cell = "-";
      for (const auto& b : pts[i].bounds)
        if (b.id == ids[k]) cell = format_log3(b, 5) + (b.in_regime ? "" : " †");
      os << " " << cell << (i == arg[k] ? " *" : "") << " |";
    }
    os << "\n";
  }
  os << "\n† outside the bound's regime condition. Maxima by depth:";
  for (std::size_t k = 0; k < ids.size(); ++k)
    os << (k ? ";" : "") << " " << ids[k] << " at L=" << pts[arg[k]].depth << " (d=" << pts[arg[k]].width << ")";
  if (arg_meas != SIZE_MAX)
    os << "; measured (exact, small shapes only) at L=" << pts[arg_meas].depth << " (d=" << pts[arg_meas].width << ")";
  os << "\n";
  if (o.out.empty()) std::cout << os.str();
  else write_file_atomic(o.out, os.str());
}

}  // namespace

void run_table(const TableOptions& o) {
  set_threads(o.threads);
  Limits lim;
  if (!o.max_memory.empty()) lim.max_memory_bytes = parse_memory_size(o.max_memory, "--max-memory");
  start_watchdog(lim, "table");
  if (!o.merge.empty()) return run_merge(o);
  if (!o.param_budget.empty()) return run_param_budget(o);
  if (o.jobs < 1 || o.jobs > 256) throw InputError("--jobs: must be in [1, 256], got " + std::to_string(o.jobs));
  SweepSpec s = make_spec(o);
  if (sweep_configs(s).empty())
    throw InputError("the sweep has no configuration: no --heads value divides any --width value");
  SweepRunOptions r;
  r.out = o.out;
  r.format = o.format.empty() ? table_format_for(o.out) : parse_table_format(o.format);
  r.resume = o.resume;
  r.jobs = o.jobs;
  r.plot = o.plot;
  // Digits only on both sides (stoul alone takes " 1", "+1" and stops at "2x").
  auto slash = o.shard.find('/');
  auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 9 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (slash == std::string::npos || !digits(o.shard.substr(0, slash)) || !digits(o.shard.substr(slash + 1)))
    throw InputError("--shard \"" + o.shard + "\": expected K/N, e.g. 2/8");
  r.shard = std::stoul(o.shard.substr(0, slash));
  r.shards = std::stoul(o.shard.substr(slash + 1));
  if (r.resume && o.out.empty()) throw InputError("--resume needs -o FILE");
  {
    const std::string hint = o.out.empty() ? "nothing was written (no -o FILE)"
                                           : "every finished row is in " + o.out + " (journal " + o.out +
                                                 ".jsonl); rerun the same command with --resume to continue";
    install_interrupt_handler("table", hint);
    set_stop_hint(hint);
  }
  const bool tty = isatty(STDERR_FILENO);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t first_done = SIZE_MAX;
  r.progress = [&](std::size_t done, std::size_t total, const std::string& what) {
    if (!tty) return;
    if (first_done == SIZE_MAX) first_done = done;
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::size_t fresh = done - first_done;
    std::string eta = fresh ? fmt_duration(el / static_cast<double>(fresh) * static_cast<double>(total - done)) : "?";
    const int width = 24;
    int filled = total ? static_cast<int>(width * done / total) : width;
    std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << done << "/" << total
              << " ETA " << eta << "  " << what.substr(0, 40) << "\033[K" << std::flush;
    if (done == total) std::cerr << "\n";
  };
  auto rows = run_sweep(s, r);
  if (o.out.empty()) std::cout << render_table(rows, r.format, "");
  std::size_t violated = 0;
  for (const auto& row : rows)
    for (const auto& b : row.bounds) violated += b.violated;
  if (violated)
    std::cerr << "netpoly: " << violated << " bound cell(s) VIOLATED by certified measurements (marked in the table)\n";
  // A row stopped by a limit is kept (marked "error") so the sweep goes on;
  // the run then says which and why, and exits 3.
  std::size_t errors = 0;
  std::string first;
  for (const auto& row : rows)
    if (row.status == BracketStatus::error && errors++ == 0) first = row.config.key() + ": " + row.lower.method;
  if (errors)
    throw LimitError(std::to_string(errors) + " row(s) could not be measured (marked error), the first: " + first);
}

}  // namespace netpoly::cli
