// The Python module's C++ half (_netpoly): the library's API, not the
// executable's. Models cross as opaque objects; polynomials as lists of
// (exponents, coefficient text); results, bounds, claims and table rows as the
// same JSON the CLI writes (so every number keeps its provenance). Long calls
// run on a worker thread with the GIL released; the calling thread polls
// Python's signal handlers, and Ctrl-C cancels the work through the
// AnalysisContext (what finished is returned with `interrupted`).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "netpoly/bounds.hpp"
#include "netpoly/claim_report.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/context.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/gauss.hpp"
#include "netpoly/limits.hpp"
#include "netpoly/lv_witness.hpp"
#include "netpoly/model.hpp"
#include "netpoly/parallel.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/seprank.hpp"
#include "netpoly/table.hpp"

namespace py = pybind11;
using namespace netpoly;

namespace {

// ------------------------------------------------------------------ limits and Ctrl-C
struct CallLimits {
  double budget = 0;      // seconds for the whole call (0: none)
  double max_memory = 0;  // bytes (0: the default, half the machine's memory)
  unsigned threads = 0;   // 0: all cores
};

AnalysisContext context_for(const CallLimits& l, std::shared_ptr<std::atomic<bool>> cancel) {
  AnalysisContext c;
  const auto start = std::chrono::steady_clock::now();
  const double budget = l.budget > 0 ? l.budget : std::numeric_limits<double>::infinity();
  c.budget_left = [start, budget] {
    return budget - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  c.max_memory_bytes = l.max_memory > 0 ? l.max_memory : default_memory_limit();
  c.memory_default = l.max_memory <= 0;
  c.resident_bytes = [] { return netpoly::resident_bytes(); };
  set_thread_count(l.threads);
  c.threads = thread_count();
  c.cancelled = [cancel] { return cancel->load(); };
  return c;
}

// Runs f(context) on a worker thread; Ctrl-C sets the cancel flag, waits for
// the worker to stop, and raises KeyboardInterrupt unless f returned (an
// interrupted f that keeps partial results returns normally with them).
template <class F>
auto interruptible(const CallLimits& l, F&& f) -> decltype(f(std::declval<const AnalysisContext&>())) {
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  const AnalysisContext ctx = context_for(l, cancel);
  auto fut = std::async(std::launch::async, [&] { return f(ctx); });
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    while (fut.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
      if (interrupted) continue;
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) {
        interrupted = true;
        cancel->store(true);
        PyErr_Clear();
      }
    }
  }
  return fut.get();  // Interrupted becomes KeyboardInterrupt (the translator below)
}

// ------------------------------------------------------------------ models
PresetOptions preset_from(const py::dict& a) {
  PresetOptions o;
  auto get = [&](const char* k, auto& v) {
    if (a.contains(k) && !a[k].is_none()) v = a[k].cast<std::remove_reference_t<decltype(v)>>();
  };
  std::string arch = a["arch"].cast<std::string>(), weights;
  o.shape.arch = parse_arch(arch);
  get("layers", o.shape.layers);
  get("width", o.shape.width);
  get("heads", o.shape.heads);
  get("tokens", o.shape.tokens);
  get("degree", o.shape.degree);
  get("residual", o.shape.residual);
  get("seed", o.seed);
  get("range", o.range);
  get("permuted", o.permuted);
  get("perm_sum", o.perm_sum);
  get("weights", weights);
  if (!weights.empty()) o.weights = parse_weight_dist(weights);
  if (o.shape.arch == Arch::mlp || (o.shape.arch == Arch::product && !a.contains("tokens"))) o.shape.tokens = 1;
  return o;
}

Model make_model(const py::dict& a) {
  const std::string arch = a["arch"].cast<std::string>();
  if (arch == "lv-witness" || arch == "lv_witness") {
    LvWitnessShape s;
    s.layers = a["layers"].cast<std::size_t>();
    s.width = a["width"].cast<std::size_t>();
    s.heads = a["heads"].cast<std::size_t>();
    s.tokens = a["tokens"].cast<std::size_t>();
    if (a.contains("omega")) s.omega = a["omega"].cast<std::uint64_t>();
    if (a.contains("rational_v")) s.rational_v = a["rational_v"].cast<bool>();
    if (a.contains("printed_last")) s.printed_last = a["printed_last"].cast<bool>();
    return make_lv_witness(s);
  }
  return make_preset(preset_from(a));
}


// ------------------------------------------------------------------ polynomials
using Term = std::pair<std::vector<ulong>, std::string>;

std::vector<Term> terms_of(const FmpqMpoly& p) {
  std::vector<Term> out;
  const slong n = p.ctx()->nvars();
  std::vector<ulong> e(static_cast<std::size_t>(n));
  Fmpq c;
  for (slong t = 0; t < p.length(); ++t) {
    fmpq_mpoly_get_term_exp_ui(e.data(), p.get(), t, p.c());
    fmpq_mpoly_get_term_coeff_fmpq(c.get(), p.get(), t, p.c());
    out.emplace_back(e, c.str());
  }
  return out;
}

FmpqMpoly poly_from(const std::vector<Term>& terms, std::size_t nvars, const FmpqMpolyCtxPtr& ctx) {
  FmpqMpoly p(ctx);
  Fmpq c;
  for (const auto& [e, s] : terms) {
    if (e.size() != nvars) throw InputError("a term has " + std::to_string(e.size()) + " exponents, expected " + std::to_string(nvars));
    if (!parse_rational(s, c)) throw InputError("coefficient '" + s + "': expected an integer or p/q");
    fmpq_mpoly_push_term_fmpq_ui(p.get(), c.get(), e.data(), ctx->get());
  }
  fmpq_mpoly_sort_terms(p.get(), ctx->get());
  fmpq_mpoly_combine_like_terms(p.get(), ctx->get());
  return p;
}

// {"re": terms, "im": terms or None}, one per requested output.
py::list expand_model(const Model& m, const std::vector<std::pair<std::size_t, std::size_t>>& outs, double max_terms,
                      const CallLimits& l) {
  std::vector<Entry> es;
  for (auto [t, c] : outs) {
    if (t >= m.tokens || c >= m.output_width()) throw InputError("output (" + std::to_string(t) + ", " + std::to_string(c) + "): out of range");
    es.push_back(Entry{t, c});
  }
  check_expansion_size(m, max_terms);
  auto res = interruptible(l, [&](const AnalysisContext& ctx) {
    ctx.check_memory(expansion_memory_estimate(m) * (m.gaussian() ? 2 : 1), "the expansion");
    PolyRing R(static_cast<slong>(m.num_inputs()));
    std::vector<std::pair<std::vector<Term>, std::optional<std::vector<Term>>>> out;
    if (m.gaussian()) {
      for (auto& g : expand_gauss(R, m, es)) out.emplace_back(terms_of(g.re), terms_of(g.im));
    } else {
      for (auto& p : expand(R, m, es)) out.emplace_back(terms_of(p), std::nullopt);
    }
    return out;
  });
  py::list r;
  for (auto& [re, im] : res) {
    py::dict d;
    d["re"] = re;
    d["im"] = im ? py::cast(*im) : py::none();
    r.append(d);
  }
  return r;
}

// ------------------------------------------------------------------ separation ranks
SepOptions sep_options(const py::dict& o) {
  SepOptions s;
  if (o.contains("methods") && !o["methods"].is_none()) s.methods = parse_methods(o["methods"].cast<std::string>());
  if (o.contains("max_terms") && !o["max_terms"].is_none()) s.max_terms = o["max_terms"].cast<double>();
  if (o.contains("method_budget") && !o["method_budget"].is_none()) s.budget = o["method_budget"].cast<double>();
  if (o.contains("seed") && !o["seed"].is_none()) {
    s.seed = o["seed"].cast<std::uint64_t>();
    s.blackbox_seed = s.seed;
  }
  if (o.contains("prime") && !o["prime"].is_none()) s.prime = o["prime"].cast<ulong>();
  if (o.contains("max_points") && !o["max_points"].is_none()) s.max_points = o["max_points"].cast<std::size_t>();
  if (o.contains("templates") && !o["templates"].is_none()) s.templates = o["templates"].cast<std::size_t>();
  if (o.contains("small_prime") && !o["small_prime"].is_none()) s.small_prime_first = o["small_prime"].cast<bool>();
  return s;
}

std::string json_text(const nlohmann::json& j) { return j.dump(); }

// Returns (results as JSON text, interrupted).
std::pair<std::string, bool> seprank_model(const Model& m, const std::vector<std::pair<std::size_t, std::size_t>>& outs,
                                           const std::vector<std::string>& parts, const py::dict& opts, const CallLimits& l) {
  SepOptions o = sep_options(opts);
  check_methods_for(m, o.methods, o.prime);
  std::vector<Entry> es;
  for (auto [t, c] : outs) es.push_back(Entry{t, c});
  std::vector<Partition> ps;
  for (const auto& p : parts) {
    if (p == "all-balanced") {
      for (auto& q : all_balanced(m.tokens, m.width)) ps.push_back(std::move(q));
    } else {
      ps.push_back(parse_partition(p, m.tokens, m.width));
    }
  }
  auto done = std::make_shared<std::vector<nlohmann::json>>();
  auto mu = std::make_shared<std::mutex>();
  bool interrupted = false;
  try {
    interruptible(l, [&](const AnalysisContext& ctx) {
      analyse_network(m, es, ps, o,
                      [done, mu](const SepResult& r, bool finished) {
                        if (!finished) return;
                        std::lock_guard<std::mutex> g(*mu);
                        done->push_back(to_json(r));
                      },
                      ctx);
      return 0;
    });
  } catch (const Interrupted&) {
    interrupted = true;
  }
  return {nlohmann::json(*done).dump(), interrupted};
}

std::string seprank_poly(const std::vector<Term>& re, const std::optional<std::vector<Term>>& im, std::size_t nvars,
                         const std::vector<std::size_t>& vars_a, const py::dict& opts, const CallLimits& l) {
  SepOptions o = sep_options(opts);
  auto ctx = std::make_shared<FmpqMpolyCtx>(static_cast<slong>(nvars));
  const FmpqMpoly P = poly_from(re, nvars, ctx);
  std::optional<FmpqMpoly> Q;
  if (im) Q = poly_from(*im, nvars, ctx);
  const Partition part = partition_from_vars(vars_a, 1, nvars);
  const SepResult r = interruptible(l, [&](const AnalysisContext& c) {
    return Q ? analyse_gaussian_polynomial(P, *Q, part, o, c) : analyse_polynomial(P, part, o, c);
  });
  return to_json(r).dump();
}

// ------------------------------------------------------------------ bounds, claims, tables
std::string bounds_json(const py::dict& a) {
  const NetworkShape s = preset_from(a).shape;
  nlohmann::json out = nlohmann::json::array();
  for (const Bound& b : compute_bounds(s)) {
    out.push_back({{"id", b.id},
                   {"source", b.source},
                   {"applies_to", b.applies_to},
                   {"kind", bound_kind_name(b.kind)},
                   {"formula", b.formula},
                   {"condition", b.condition},
                   {"in_regime", b.in_regime},
                   {"defined", b.defined},
                   {"value", b.defined && b.exact ? nlohmann::json(b.exact->str()) : nlohmann::json(nullptr)},
                   {"floored", b.floored},
                   {"log3", b.log3_text},
                   {"note", b.note}});
  }
  return out.dump();
}

// fn(i) for i < n, in order, until Ctrl-C: (the results as a JSON array, interrupted).
template <class F>
std::pair<std::string, bool> collect(const CallLimits& l, std::size_t n, F&& fn) {
  auto out = std::make_shared<std::vector<nlohmann::json>>();
  bool interrupted = false;
  try {
    interruptible(l, [&](const AnalysisContext& ctx) {
      for (std::size_t i = 0; i < n; ++i) {
        ctx.check_cancelled();
        out->push_back(fn(i));
      }
      return 0;
    });
  } catch (const Interrupted&) {
    interrupted = true;
  }
  return {nlohmann::json(*out).dump(), interrupted};
}

// Claims run one after another; Ctrl-C stops between two of them.
std::pair<std::string, bool> check_paths(const std::vector<std::string>& paths, const std::string& filter, double budget,
                                         bool strict, const CallLimits& l) {
  const auto files = load_claim_paths(paths);
  const auto claims = select_claims(files, filter);
  CheckOptions o;
  o.filter = filter;
  o.budget = budget;
  o.strict = strict;
  return collect(l, claims.size(), [&](std::size_t i) { return claim_json(run_claim(*claims[i], o)); });
}

// Rows are measured one after another; Ctrl-C stops between two of them.
std::pair<std::string, bool> table_rows(const std::string& sweep_json, const CallLimits& l) {
  const SweepSpec s = SweepSpec::from_sweep_json(nlohmann::json::parse(sweep_json));
  const auto configs = s.budgets.empty() ? sweep_configs(s) : budget_configs(s);
  return collect(l, configs.size(), [&](std::size_t i) { return measure_row(configs[i], s).to_json(); });
}

}  // namespace

PYBIND11_MODULE(_netpoly, mod) {
  mod.doc() = "netpoly's C++ library (use the netpoly package, not this module)";
  mod.attr("__version__") = NETPOLY_VERSION;
  mod.attr("flint_version") = FLINT_VERSION;

  // Exceptions: the CLI's kinds, each carrying its message.
  static py::exception<Error> base(mod, "Error");
  static py::exception<InputError> input(mod, "InputError", base.ptr());
  static py::exception<LimitError> limit(mod, "LimitError", base.ptr());
  static py::exception<CheckFailed> check(mod, "CheckFailed", base.ptr());
  static py::exception<InternalError> internal(mod, "InternalError", base.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Interrupted& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const LimitError& e) {
      limit(e.what());
    } catch (const InputError& e) {
      input(e.what());
    } catch (const DomainError& e) {
      input(e.what());
    } catch (const CheckFailed& e) {
      check(e.what());
    } catch (const InternalError& e) {
      internal(e.what());
    } catch (const Error& e) {
      base(e.what());
    }
  });

  py::class_<CallLimits>(mod, "Limits")
      .def(py::init<>())
      .def_readwrite("budget", &CallLimits::budget)
      .def_readwrite("max_memory", &CallLimits::max_memory)
      .def_readwrite("threads", &CallLimits::threads);

  py::class_<Model>(mod, "Model")
      .def_property_readonly("name", [](const Model& m) { return m.name; })
      .def_property_readonly("tokens", [](const Model& m) { return m.tokens; })
      .def_property_readonly("width", [](const Model& m) { return m.width; })
      .def_property_readonly("output_width", [](const Model& m) { return m.output_width(); })
      .def_property_readonly("layers", [](const Model& m) { return m.layers.size(); })
      .def_property_readonly("gaussian", [](const Model& m) { return m.gaussian(); })
      // a Gaussian weight a+bi counts once (the imaginary parts share the structure)
      .def_property_readonly("params", [](const Model& m) { return parameter_count(m); })
      .def_property_readonly("degree", [](const Model& m) { return estimate_expansion(m).degree; })
      .def_property_readonly("output", [](const Model& m) -> py::object {
        if (!m.output) return py::none();
        return py::make_tuple(m.output->token, m.output->channel);
      })
      .def("to_json", [](const Model& m) { return write_model(m); })
      .def("__eq__", [](const Model& a, const Model& b) { return a == b; });

  mod.def("make", &make_model, "a preset model (the options of `netpoly make`)");
  mod.def("parse", [](const std::string& text, const std::string& source) {
    Model m = parse_model(text, source);
    validate_model(m, source);
    return m;
  });
  mod.def("load", [](const std::string& path) { return read_model(path); });
  mod.def("expand", &expand_model);
  mod.def("seprank", &seprank_model);
  mod.def("seprank_poly", &seprank_poly);
  mod.def("bounds", &bounds_json);
  mod.def("bound_ids", &bound_ids);
  mod.def("check", &check_paths);
  mod.def("table", &table_rows);
  mod.def("var_name", [](std::size_t width, slong v) { return var_name(width, v); });
}
