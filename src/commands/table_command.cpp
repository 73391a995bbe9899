// netpoly table: sweeps of measured separation ranks against every bound.
#include <unistd.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <algorithm>
#include <set>
#include <sstream>

#include "netpoly/options.hpp"
#include "commands/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "runtime/limits.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/table.hpp"
#include "runtime/io.hpp"
#include "runtime/text_escape.hpp"
#include "netpoly/version.hpp"

namespace netpoly::cli {

namespace {


std::string fmt_duration(double s) {
  long t = static_cast<long>(s + 0.5);
  char b[32];
  if (t >= 3600) std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(b, sizeof b, "%ld:%02ld", t / 60, t % 60);
  return b;
}

// The rows' violated bound cells, said on stderr (the table marks them).
void report_violations(const std::vector<TableRow>& rows) {
  std::size_t violated = 0;
  for (const auto& row : rows)
    for (const auto& b : row.bounds) violated += b.violated;
  if (violated)
    std::cerr << "netpoly: " << violated << " bound cell(s) VIOLATED by certified measurements (marked in the table)\n";
}

// Joins shard tables of one sweep (merge_tables: every row judged like a
// fresh one, foreign and conflicting rows refused) into exactly the table an
// unsharded run gives, title included.
void run_merge(const TableOptions& o) {
  if (o.out.empty()) throw InputError("--merge needs -o OUT");
  const TableFormat f = o.format.empty() ? table_format_for(o.out) : parse_table_format(o.format);
  if (!o.plot.empty()) plot_format_for(o.plot);  // a bad extension is refused before any work
  Merged m = merge_tables(o.merge);
  std::vector<NetworkShape> shapes;
  for (const auto& r : m.rows) shapes.push_back(r.config.params);
  const TableView view = table_view(o.bounds, o.columns, shapes, !m.spec.budgets.empty());
  write_file_atomic(o.out, render_table(m.rows, f, m.title, view));
  std::string journal;
  for (const auto& r : m.rows) journal += r.to_json().dump() + "\n";
  write_file_atomic(o.out + ".jsonl", journal);
  if (!o.plot.empty()) write_plot(o.plot, m.rows, m.title, view);
  std::cerr << "merged " << m.rows.size() << " rows into " << printable(o.out) << "\n";
  if (m.version != netpoly_build())
    std::cerr << "netpoly: note: the rows were measured by netpoly " << printable(m.version) << "; this is netpoly "
              << netpoly_build() << "\n";
  report_violations(m.rows);
}

}  // namespace

void run_table(const TableOptions& o) {
  // The run limits given (--threads, --max-memory), checked by the option table with the rest.
  SepOptions given = SweepSpec{}.sep;
  set_options_from_text(given, o.options);
  set_threads(given.threads);
  Limits lim;
  if (given.max_memory > 0) lim.max_memory_bytes = given.max_memory;
  start_watchdog(lim, "table");
  if (!o.merge.empty()) return run_merge(o);
  if (o.jobs < 1 || o.jobs > 256) throw InputError("--jobs: must be in [1, 256], got " + std::to_string(o.jobs));
  SweepSpec s = sweep_spec(o);
  if (sweep_configs(s).empty())
    throw InputError(s.budgets.empty() ? "the sweep has no configuration: no --heads value divides any --width value"
                                       : "--param-budget " + o.param_budget +
                                             ": no shape of these architectures fits (or the partition cannot "
                                             "split any that fits)");
  SweepRunOptions r;
  r.out = o.out;
  r.format = o.format.empty() ? table_format_for(o.out) : parse_table_format(o.format);
  r.resume = o.resume;
  r.jobs = o.jobs;
  r.plot = o.plot;
  if (!r.plot.empty()) plot_format_for(r.plot);  // refused before any row is measured
  {
    std::vector<NetworkShape> shapes;
    for (const auto& c : sweep_configs(s)) shapes.push_back(c.params);
    r.view = table_view(o.bounds, o.columns, shapes, !s.budgets.empty());
  }
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
              << " ETA " << eta << "  " << clip(printable(what), 40) << "\033[K" << std::flush;
    if (done == total) std::cerr << "\n";
  };
  auto rows = run_sweep(s, r);
  if (o.out.empty()) std::cout << render_table(rows, r.format, "", r.view);
  report_violations(rows);
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
