// netpoly expand MODEL: expand output entries into exact polynomials.
#include <cmath>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "runtime/limits.hpp"
#include "runtime/text_escape.hpp"
#include "terminal_progress.hpp"
#include "expansion/packing.hpp"

namespace netpoly::cli {

namespace {


template <class P>
void print_one(std::ostream& os, const ExpandOptions& o, const Model& m, const Entry& e, const P& p, bool first,
               const std::string& domain) {
  PolyStats s = poly_stats(p, m.tokens, m.width);
  PolyFormat f = parse_poly_format(o.format);
  if (o.json) {
    os << (first ? "" : ",") << "\n{\"token\":" << e.token << ",\"channel\":" << e.channel << ",\"terms\":" << s.terms
       << ",\"degree\":" << s.degree << ",\"token_degrees\":[";
    for (std::size_t i = 0; i < s.token_degree.size(); ++i) os << (i ? "," : "") << s.token_degree[i];
    os << "],\"height_bits\":" << s.height_bits << ",\"domain\":\"" << domain << "\"";
    if (!o.stats) {
      os << ",\"polynomial\":";
      write_poly(os, p, m.width, PolyFormat::json);
    }
    os << "}";
    return;
  }
  std::string yname = e.name();
  if (f == PolyFormat::text || o.stats) {
    os << yname << ": terms " << s.terms << ", degree " << s.degree << ", token degrees [";
    for (std::size_t i = 0; i < s.token_degree.size(); ++i) os << (i ? ", " : "") << s.token_degree[i];
    os << "], height " << s.height_bits << " bits (" << domain << ")\n";
  }
  if (o.stats) return;
  switch (f) {
    case PolyFormat::text: os << "  "; write_poly(os, p, m.width, f); os << "\n"; break;
    case PolyFormat::json: write_poly(os, p, m.width, f); os << "\n"; break;
    case PolyFormat::sympy: os << yname << " = "; write_poly(os, p, m.width, f); os << "\n"; break;
    case PolyFormat::singular: os << "poly " << yname << " = "; write_poly(os, p, m.width, f); os << ";\n"; break;
    case PolyFormat::latex: os << "y_{" << e.token << "," << e.channel << "} &= "; write_poly(os, p, m.width, f); os << " \\\\\n"; break;
  }
}

void preamble(std::ostream& os, const ExpandOptions& o, const Model& m) {
  if (o.json || o.stats) return;
  const std::size_t nv = m.num_inputs();
  auto vars = [&](const char* sep) {
    std::string s;
    for (std::size_t v = 0; v < nv; ++v) s += (v ? sep : "") + var_name(m.width, static_cast<slong>(v));
    return s;
  };
  if (o.format == "sympy") {
    // A trailing comma in the names makes symbols() return a tuple for one variable too.
    os << "from sympy import symbols, Rational" << (m.gaussian() ? ", I" : "") << "\n" << vars(", ") << (nv == 1 ? "," : "") << " = symbols('" << vars(" ")
       << (nv == 1 ? "," : "") << "')\n";
  } else if (o.format == "singular") {
    // Gaussian weights: the coefficient field Q(i), i a parameter with minimal polynomial i^2 + 1.
    os << "ring r = " << (o.modulus ? std::to_string(o.modulus) : m.gaussian() ? "(0,i)" : "0") << ", ("
       << vars(", ") << "), dp;\n";
    if (m.gaussian()) os << "minpoly = i^2+1;\n";
  } else if (o.format == "latex") {
    os << "\\begin{align*}\n";
  }
}

// The estimate the limits are checked against, as JSON (its own object in
// --json output, with and without --estimate).
// Seconds rounded to milliseconds (a rough estimate).
nlohmann::ordered_json estimate_json(const Model& m) {
  const auto est = estimate_expansion(m);
  nlohmann::ordered_json j;
  j["terms"] = est.terms;
  j["bytes"] = expansion_memory_estimate(m);
  j["degree"] = est.degree;
  j["homogeneous"] = est.homogeneous;
  j["seconds"] = std::round(expansion_seconds_estimate(est.terms) * 1000) / 1000;
  return j;
}

std::string g3(double x) {
  char b[64];
  std::snprintf(b, sizeof b, x < 0x1p53 ? "%.0f" : "%.3g", x);
  return b;
}

// --estimate: what an expansion would cost, without expanding; `refusal` is
// the message `expand` would stop with (empty: it would start).
void print_estimate(std::ostream& os, const ExpandOptions& o, const Model& m, const std::vector<Entry>& outs,
                    const std::string& refusal) {
  const auto est = estimate_expansion(m);
  const double bytes = expansion_memory_estimate(m);
  const double secs = expansion_seconds_estimate(est.terms);
  if (o.json) {
    nlohmann::ordered_json j;
    j["model"] = m.name;
    j["estimate_only"] = true;
    j["estimate"] = estimate_json(m);
    j["outputs"] = nlohmann::json::array();
    for (const auto& e : outs) j["outputs"].push_back({{"token", e.token}, {"channel", e.channel}});
    j["refused"] = refusal.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(refusal);
    os << j.dump() << "\n";
    return;
  }
  const std::string t = format_fixed(secs, 1);
  os << "estimate (no expansion done) for " << (m.name.empty() ? "the model" : printable(m.name)) << ", " << outs.size()
     << (outs.size() == 1 ? " output entry" : " output entries") << "\n"
     << "  terms   <= " << (std::isfinite(est.terms) ? g3(est.terms) : std::string("inf"))
     << " per output entry (an upper bound)\n"
     << "  degree  <= " << format_degree(est.degree)
     << (est.homogeneous ? " (homogeneous: every term has the same degree)" : " (lower degrees too)") << "\n"
     << "  memory  about " << format_bytes(bytes) << " at the peak (an estimate)\n"
     << "  time    about " << t << " s per output entry (a rough estimate)\n"
     << "  expand  " << (refusal.empty() ? "would start (within --max-terms and the memory limit)" : "would refuse: " + refusal)
     << "\n";
}

}  // namespace

void run_expand(const ExpandOptions& options) {
  ExpandOptions o = options;
  if (!o.modulus_text.empty()) o.modulus = parse_u64(o.modulus_text, "--modulus", 2);
  // The run limits through the option table (scope kExpand).
  SepOptions given;
  set_options_from_text(given, o.limits);
  set_threads(given.threads);
  Limits lim;
  if (given.max_memory > 0) lim.max_memory_bytes = given.max_memory;
  if (std::isfinite(given.budget)) lim.budget_seconds = given.budget;
  start_watchdog(lim, "expand");
  parse_poly_format(o.format);
  if (o.format == "sympy" && o.modulus) throw InputError("--format sympy cannot express a modular expansion; drop --modulus");
  Model m = read_model(o.model);
  std::optional<Entry> req;
  if (!o.output.empty()) req = parse_entry(o.output, "--output");
  auto outs = resolve_outputs(m, req, o.all);
  if (o.modulus) require_prime_modulus(o.modulus, "--modulus");
  if (o.modulus && m.gaussian())
    throw InputError(o.model + " has Gaussian weights (a+bi): --modulus expands over the rationals mod p only; "
                     "drop --modulus");
  std::ostream& os = std::cout;
  if (o.estimate) {
    std::string refusal;
    try {
      check_expansion_size(m, given.max_terms);
      check_memory_estimate(expansion_memory_estimate(m), "the expansion");
    } catch (const LimitError& e) {
      refusal = e.what();
    }
    print_estimate(os, o, m, outs, refusal);
    return;
  }
  check_expansion_size(m, given.max_terms);
  check_memory_estimate(expansion_memory_estimate(m), "the expansion");
  // Outputs are printed whole, one at a time, under `mu`. Stopped early (a
  // limit, SIGINT, SIGTERM), the outputs printed so far are complete and the
  // JSON is closed; an output being written when the stop comes is finished
  // if that takes under half a second, else said to be cut.
  std::timed_mutex mu;
  TerminalProgress<std::timed_mutex> progress{mu};
  std::size_t printed = 0;
  auto report = [&](int code) {
    const bool got = mu.try_lock_for(std::chrono::milliseconds(500));
    const std::string why = code == static_cast<int>(ExitCode::interrupted) ? "interrupted" : "stopped";
    if (got) {
      progress.clear();
      if (o.json) os << "\n],\"" << (why == "interrupted" ? "interrupted" : "stopped") << "\":true}\n";
      os.flush();
    }
    std::string msg = "netpoly: expand: " + why + " after " + std::to_string(printed) + " of " +
                      std::to_string(outs.size()) + " output entries, printed complete above" +
                      (got ? "" : " (the next one was being written and is cut)") + "\n";
    ssize_t n = write(STDERR_FILENO, msg.data(), msg.size());
    (void)n;
    if (got) mu.unlock();
  };
  set_stop_report(report);
  install_interrupt_handler("expand", "");
  // A long expansion shows its progress on a terminal (the analysis's
  // expansion_watch lines); the watch also stops it near the memory limit.
  AnalysisContext run = AnalysisContext::process();
  progress.attach(run);
  const double entry_seconds = expansion_seconds_estimate(estimate_expansion(m).terms);
  auto watched = [&](auto ring, std::size_t k) {
    ring.watch = expansion_watch(run, outs[k].name(), entry_seconds);
    return ring;
  };
  {
    std::lock_guard<std::timed_mutex> lock(mu);
    preamble(os, o, m);
    if (o.json) {
      // The estimates the limits are checked against, next to what the work
      // then measures (bench/memory compares them with the peak).
      os << "{\"model\":" << nlohmann::json(m.name).dump() << ",\"estimate\":" << estimate_json(m).dump()
         << ",\"outputs\":[";
    }
    os.flush();
  }
  auto emit = [&](std::size_t k, const auto& p, const std::string& dom) {
    std::lock_guard<std::timed_mutex> lock(mu);
    progress.clear();
    print_one(os, o, m, outs[k], p, k == 0, dom);
    os.flush();
    ++printed;
  };
  try {
    if (o.modulus) {
      ModPolyRing R(static_cast<slong>(m.num_inputs()), o.modulus);
      std::string dom = "mod " + std::to_string(o.modulus);
      for (std::size_t k = 0; k < outs.size(); ++k) emit(k, expand_mod(watched(R, k), m, {outs[k]})[0], dom);
    } else if (m.gaussian()) {
      PolyRing R(static_cast<slong>(m.num_inputs()));
      for (std::size_t k = 0; k < outs.size(); ++k) emit(k, expand_gauss(watched(R, k), m, {outs[k]})[0], "exact over Q(i)");
    } else {
      PolyRing R(static_cast<slong>(m.num_inputs()));
      for (std::size_t k = 0; k < outs.size(); ++k) emit(k, expand(watched(R, k), m, {outs[k]})[0], "exact");
    }
  } catch (const LimitError&) {
    // The watch's stop near the memory limit: what finished is printed whole
    // (the JSON closed), as when the watchdog stops the run.
    set_stop_report({});
    report(static_cast<int>(ExitCode::limit));
    throw;
  }
  set_stop_report({});
  std::lock_guard<std::timed_mutex> lock(mu);
  progress.clear();
  if (o.json) os << "\n]}\n";
  if (!o.json && !o.stats && o.format == "latex") os << "\\end{align*}\n";
}

}  // namespace netpoly::cli
