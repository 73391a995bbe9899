// The Python module's C++ half (_netpoly): the library's API, not the
// executable's. Models cross as opaque objects; polynomials as lists of
// (exponents, coefficient text); results, bounds, claims and table rows as the
// same JSON the CLI writes (so every number keeps its provenance). Every
// argument is read with the CLI's checks (args.hpp; analysis options through
// the one option table), so bad input is an InputError naming it. Long calls
// run on a worker thread with the GIL released; the calling thread polls
// Python's signal handlers and shows progress, and Ctrl-C cancels the work
// through the AnalysisContext (what finished is returned with `interrupted`).
#include <cctype>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <initializer_list>
#include <mutex>
#include <thread>
#include <sstream>
#include <tuple>

#include "args.hpp"
#include "interruptible.hpp"
#include "netpoly/bounds.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/context.hpp"
#include "netpoly/error.hpp"
#include "netpoly/evaluate.hpp"
#include "netpoly/jacobian.hpp"
#include "netpoly/version.hpp"
#include "netpoly/expand.hpp"
#include "netpoly/io.hpp"
#include "netpoly/lv_witness.hpp"
#include "netpoly/model.hpp"
#include "netpoly/parallel.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/poly_text.hpp"
#include "netpoly/presets.hpp"
#include "netpoly/request.hpp"
#include "netpoly/seprank.hpp"
#include "netpoly/shards.hpp"
#include "netpoly/table.hpp"

namespace py = pybind11;
using namespace netpoly;
using namespace netpoly::python;
using json = nlohmann::json;

namespace {

// ------------------------------------------------------------------ models
Model make_model(const std::string& arch, const py::dict& kw) {
  Args a(kw, "make('" + arch + "')");
  if (arch == "lv-witness" || arch == "lv_witness") {
    LvWitnessShape s;
    s.layers = a.count("layers", 1, 64, s.layers);
    s.width = a.count("width", 1, 4096, s.width);
    s.heads = a.count("heads", 1, 4096, s.heads);
    s.tokens = a.count("tokens", 1, 65536, s.tokens);
    s.omega = a.count("omega", 2, UINT64_MAX, s.omega);
    s.rational_v = a.flag("rational_v", false);
    s.printed_last = a.flag("printed_last", false);
    a.finish();
    return make_lv_witness(s);
  }
  PresetOptions o;
  try {
    o.shape.arch = parse_arch(arch);
  } catch (const InputError&) {  // parse_arch's list lacks lv-witness, which make takes (above)
    throw InputError("make: unknown architecture '" + clip(arch, 40) +
                     "' (expected attention, mixer, mlp, product or lv-witness)");
  }
  const Arch A = o.shape.arch;
  o.shape.layers = a.count("layers", 1, 4096, 1);
  o.shape.width = a.count("width", 1, 65536, 2);
  if (A == Arch::attention) o.shape.heads = a.count("heads", 1, 65536, 1);
  if (A != Arch::mlp) o.shape.tokens = a.count("tokens", 1, 65536, A == Arch::product ? 1 : 2);
  else o.shape.tokens = 1;
  if (A == Arch::product || A == Arch::attention)
    o.shape.degree = a.count("degree", 1, 64, A == Arch::product ? 2 : 3);
  if (A != Arch::product) o.shape.residual = a.flag("residual", false);
  if (A == Arch::attention) o.causal = a.flag("causal", false);
  if (A == Arch::mixer || A == Arch::mlp) {
    o.permuted = a.flag("permuted", false);
    o.perm_sum = a.count("perm_sum", 1, 64, 1);
  }
  o.seed = a.count("seed", 0, UINT64_MAX, 1);
  o.weights = parse_weight_dist(a.text("weights", "small"));
  o.range = static_cast<std::int64_t>(a.count("weight_range", 0, std::uint64_t{1} << 40, 0));
  a.finish();
  return make_preset(o);
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
    if (e.size() != nvars)
      throw InputError("a term has " + std::to_string(e.size()) + " exponents, expected " + std::to_string(nvars));
    ulong degree = 0;  // each exponent and the term's degree below 2^62 (poly_text.hpp), so no sum wraps
    for (ulong x : e)
      if (x > kMaxPolyExponent || (degree += x) > kMaxPolyExponent)
        throw InputError("an exponent or a term's degree of 2^62 or more: the polynomial is refused");
    if (!parse_rational(s, c)) throw InputError("coefficient '" + clip(s, 40) + "': expected an integer or p/q");
    fmpq_mpoly_push_term_fmpq_ui(p.get(), c.get(), e.data(), ctx->get());
  }
  fmpq_mpoly_sort_terms(p.get(), ctx->get());
  fmpq_mpoly_combine_like_terms(p.get(), ctx->get());
  return p;
}

// A polynomial from text (poly_text.hpp: checked before FLINT's parser reads it).
std::vector<Term> parse_poly(const std::string& text, const std::vector<std::string>& names, double max_terms) {
  return terms_of(parse_poly_text(text, names, max_terms));
}

// {"re": terms, "im": terms or None}, one per requested output.
py::list expand_model(const Model& m, const std::vector<std::pair<std::size_t, std::size_t>>& outs,
                      const py::dict& kw, py::object progress) {
  SepOptions o = py_sep_options(kw);  // max_terms, budget, max_memory, threads: the table's checks
  std::vector<Entry> es;
  for (auto [t, c] : outs) {
    if (t >= m.tokens || c >= m.output_width())
      throw InputError("output (" + std::to_string(t) + ", " + std::to_string(c) + "): out of range (the model has " +
                       std::to_string(m.tokens) + " tokens and " + std::to_string(m.output_width()) + " channels)");
    es.push_back(Entry{t, c});
  }
  check_expansion_size(m, o.max_terms);
  auto res = interruptible(o, progress, [&](const AnalysisContext& ctx) {
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
// Returns (results as JSON text, interrupted).
std::pair<std::string, bool> seprank_model(const Model& m, const std::vector<std::pair<std::size_t, std::size_t>>& outs,
                                           const std::vector<std::string>& parts, const py::dict& kw,
                                           py::object progress) {
  const SepOptions o = py_sep_options(kw);
  // The request as the CLI's seprank assembles it (netpoly/request.hpp).
  SepRequest req;
  for (auto [t, c] : outs) req.outputs.push_back(Entry{t, c});
  req.partitions = parts;
  SepPairs pairs = request_pairs(m, req, o, Spelling::python);
  std::vector<Entry> es = std::move(pairs.outputs);
  const std::vector<Partition> ps = std::move(pairs.partitions);
  // As the CLI's seprank: the finished results, and on Ctrl-C the pairs in
  // flight with the methods that finished for each (and a running method's
  // bound so far), marked "unfinished".
  auto done = std::make_shared<std::vector<json>>();
  auto partial = std::make_shared<std::map<std::string, json>>();
  auto mu = std::make_shared<std::mutex>();
  // The work owns what it reads (Ctrl-C may leave it to stop on its own, after this call returned).
  auto work = std::make_shared<const std::tuple<Model, std::vector<Entry>, std::vector<Partition>, SepOptions>>(
      m, std::move(es), ps, o);
  bool interrupted = false;
  try {
    interruptible(
        o, progress,
        [work, done, partial, mu](const AnalysisContext& ctx) {
          const auto& [model, entries, parts, opts] = *work;
          analyse_network(model, entries, parts, opts,
                          [done, partial, mu](const SepResult& r, bool finished) {
                            const std::string key = r.output.name() + " " + r.partition.label();
                            std::lock_guard<std::mutex> g(*mu);
                            if (!finished) {
                              json j = to_json(r);
                              j["unfinished"] = true;
                              (*partial)[key] = std::move(j);
                              return;
                            }
                            partial->erase(key);
                            done->push_back(to_json(r));
                          },
                          ctx);
          return 0;
        },
        true);
  } catch (const Interrupted&) {
    interrupted = true;
  }
  std::lock_guard<std::mutex> g(*mu);  // a worker left to stop may still hand results over
  json out = *done;
  if (interrupted)
    for (const auto& [k, j] : *partial) out.push_back(j);
  return {out.dump(), interrupted};
}

std::string seprank_poly(const std::vector<Term>& re, const std::optional<std::vector<Term>>& im, std::size_t nvars,
                         const std::vector<std::size_t>& vars_a, const py::dict& kw, py::object progress) {
  const SepOptions o = py_sep_options(kw);
  if (nvars == 0) throw InputError("seprank: the polynomial has no variables (a constant has sep 0 or 1)");
  auto ctx = std::make_shared<FmpqMpolyCtx>(static_cast<slong>(nvars));
  const FmpqMpoly P = poly_from(re, nvars, ctx);
  std::optional<FmpqMpoly> Q;
  if (im) Q = poly_from(*im, nvars, ctx);
  const Partition part = partition_from_vars(vars_a, 1, nvars);
  const SepResult r = interruptible(o, progress, [&](const AnalysisContext& c) {
    return Q ? analyse_gaussian_polynomial(P, *Q, part, o, c) : analyse_polynomial(P, part, o, c);
  });
  return to_json(r).dump();
}

// ------------------------------------------------------------------ bounds, claims, tables
std::string bounds_for(const std::string& arch, const py::dict& kw) {
  Args a(kw, "bounds('" + arch + "')");
  BoundsRequest o;
  o.arch = arch;
  o.params.layers = a.count("layers", 1, 4096, 1);
  o.params.width = a.count("width", 1, std::uint64_t{1} << 40, 2);
  o.heads_given = a.has("heads");
  o.params.heads = a.count("heads", 1, std::uint64_t{1} << 40, 1);
  o.tokens_given = a.has("tokens");
  o.params.tokens = a.count("tokens", 1, std::uint64_t{1} << 40, 2);
  o.degree_given = a.has("degree");
  o.params.degree = a.count("degree", 1, 64, 0);
  o.params.residual = a.flag("residual", false);
  o.causal = a.flag("causal", false);
  a.finish();
  return bounds_json_for(o);
}

// fn(i) for i < n, in order, until Ctrl-C: (the results as a JSON array, interrupted).
template <class F>
std::pair<std::string, bool> collect(const SepOptions& lim, py::object progress, std::size_t n, F&& fn) {
  auto out = std::make_shared<std::vector<json>>();
  bool interrupted = false;
  try {
    interruptible(lim, progress, [&](const AnalysisContext& ctx) {
      for (std::size_t i = 0; i < n; ++i) {
        ctx.check_cancelled();
        ctx.progress(std::to_string(i) + " of " + std::to_string(n) + " done");
        out->push_back(fn(i));
      }
      return 0;
    });
  } catch (const Interrupted&) {
    interrupted = true;
  }
  return {json(*out).dump(), interrupted};
}

// The keywords `names` of a call that is not an analysis (check, table), each
// marked as read and checked by the option table as seprank's are; one absent
// (or None) keeps SepOptions' default.
SepOptions table_options(Args& a, const py::dict& kw, std::initializer_list<const char*> names) {
  py::dict given;
  for (const char* k : names) {
    a.mark(k);
    if (a.has(k)) given[k] = kw[k];
  }
  return py_sep_options(given);
}

// budget= and max_terms= of a check or a table (CheckOptions, a sweep's SepOptions);
// an absent one keeps o's default.
template <class Options>
void take_budget(Args& a, const py::dict& kw, Options& o) {
  const SepOptions checked = table_options(a, kw, {"budget", "max_terms"});
  if (a.has("budget")) o.budget = checked.budget;
  if (a.has("max_terms")) o.max_terms = checked.max_terms;
}

// The limits of a call that is not an analysis (check, table): max_memory, threads.
SepOptions limits_of(Args& a, const py::dict& kw) { return table_options(a, kw, {"max_memory", "threads"}); }

// Claims run one after another; Ctrl-C stops between two of them.
// Each call is a run of its own: the inputs an earlier call read (io.hpp) are
// not this one's, and their descriptors are let go.
std::pair<std::string, bool> check_paths(const std::vector<std::string>& paths, const py::dict& kw, py::object progress) {
  forget_inputs();
  Args a(kw, "check");
  CheckOptions o;
  o.filter = a.text("match", "");
  o.strict = a.flag("strict", false);
  take_budget(a, kw, o);
  const SepOptions lim = limits_of(a, kw);
  a.finish();
  const auto files = load_claim_paths(paths);
  const auto claims = select_claims(files, o.filter);
  // Each report carries the text `netpoly check` prints for it (Report's str).
  return collect(lim, progress, claims.size(), [&](std::size_t i) {
    const ClaimResult r = run_claim(*claims[i], o);
    json j = claim_json(r);
    std::ostringstream text;
    write_claim_text(text, r);
    j["text"] = text.str();
    return j;
  });
}

// Rows are measured one after another; Ctrl-C stops between two of them. The
// sweep is checked as `netpoly table` checks its flags.
std::pair<std::string, bool> table_rows(const py::dict& kw, py::object progress) {
  forget_inputs();  // a run of its own, as check_paths
  Args a(kw, "table");
  SweepRequest o;
  o.arch = a.text("arch", "attention");
  o.layers = a.counts("layers", "1");
  o.width = a.counts("widths", "2");
  o.heads = a.counts("heads", "1");
  o.tokens = a.counts("tokens", "");
  o.degree = a.counts("degrees", "");
  o.residual = a.flag("residual", false);
  o.seeds = a.count("seeds", 1, 10000, 1);
  o.weights = a.text("weights", "generic");
  o.partition = a.text("partition", "half");
  o.methods = a.text("methods", "");
  o.param_budget = a.counts("param_budget", "");
  o.max_depth = a.count("max_depth", 1, 64, 6);
  o.max_width = a.count("max_width", 1, 4096, 16);
  // The rows' options and the run limits through the option table, as the CLI's kTable flags.
  SepOptions sep = SweepSpec{}.sep;
  take_budget(a, kw, sep);
  const SepOptions lim = limits_of(a, kw);
  a.finish();
  try {
    const SweepSpec s = sweep_spec(o, sep);
    const auto configs = s.budgets.empty() ? sweep_configs(s) : budget_configs(s);
    return collect(lim, progress, configs.size(), [&](std::size_t i) { return measure_row(configs[i], s).to_json(); });
  } catch (const InputError& e) {  // table()'s keywords for the sweep's lists
    throw InputError(python_spelling(e.what(), {{"width", "widths"}, {"degree", "degrees"}, {"range", "weight_range"}}));
  }
}

// Rows (their JSON) rendered as `netpoly table` renders them (md, csv, latex, json).
// `bounds`, `columns`: as `--bounds` and `--columns` ("" for the defaults),
// checked as the command checks them.
std::string render_rows(const std::string& rows_json, const std::string& format, const std::string& title,
                        const std::string& bounds, const std::string& columns) {
  std::vector<TableRow> rows;
  std::vector<NetworkShape> shapes;
  for (const auto& j : json::parse(rows_json)) {
    rows.push_back(TableRow::from_json(j));
    shapes.push_back(rows.back().config.params);
  }
  const TableFormat f = parse_table_format(format);
  const bool budget = !rows.empty() && !rows[0].config.budget.empty();
  const TableView view = table_view(bounds, columns, shapes, budget);
  return budget ? render_budget_table(rows, f, title, view) : render_table(rows, f, title, view);
}

// The option table, for Python's signatures and docstrings.
py::list options_table() {
  py::list out;
  for (const auto& o : analysis_options()) {
    if (!(o.scope & kPython)) continue;
    py::dict d;
    d["name"] = o.name;
    d["help"] = o.help;
    d["default"] = o.default_text;
    d["claims"] = (o.scope & kClaims) != 0;
    static const char* types[] = {"bool", "int", "float", "float", "int", "int", "str | list[str]", "int | str",
                                  "int | list[list]"};
    d["type"] = types[static_cast<int>(o.type)];
    out.append(d);
  }
  return out;
}

// A Python integer's decimal text, whatever its size (Python's own str()
// refuses more than 4,300 digits): through its hexadecimal text, which has
// no such limit, and FLINT.
std::string decimal(const std::string& hex) {
  Fmpz z;
  const bool neg = !hex.empty() && hex[0] == '-';
  if (fmpz_set_str(z.get(), hex.c_str() + (neg ? 1 : 0), 16) != 0) throw InputError("not an integer: " + clip(hex, 40));
  if (neg) fmpz_neg(z.get(), z.get());
  return z.str();
}

// The other way: a decimal integer's hexadecimal text (int(h, 16) has no size limit).
std::string hexadecimal(const std::string& dec) {
  Fmpz z;
  if (!z.set_str(dec)) throw InputError("not an integer: " + clip(dec, 40));
  char* s = fmpz_get_str(nullptr, 16, z.get());
  std::string r(s);
  flint_free(s);
  return r;
}

// net(X): each point as the model format's number texts (row-major); the
// values as texts, or (residues mod `prime`, the square root of -1 used).
py::object evaluate_points(const Model& m, const std::vector<std::vector<std::string>>& texts, ulong prime) {
  std::vector<Point> points;
  for (std::size_t k = 0; k < texts.size(); ++k) {
    Point p;
    for (const auto& t : texts[k]) {
      Exact x;
      if (!parse_exact(t, x)) throw InputError("point " + std::to_string(k) + ": not an exact number: " + clip(t, 40));
      p.push_back(std::move(x));
    }
    points.push_back(std::move(p));
  }
  if (prime) {
    ModValues r = evaluate_mod(m, points, prime, "prime=");
    return py::make_tuple(r.values, r.sqrt_minus_one);
  }
  std::vector<std::vector<std::string>> out;
  for (const auto& v : evaluate(m, points)) {
    out.emplace_back();
    for (const auto& x : v) out.back().push_back(exact_text(x));
  }
  return py::cast(out);
}

// netpoly.jacobian_rank: the dimension of the function family (netpoly/jacobian.hpp).
py::dict jacobian_of(const Model& m, const std::vector<std::pair<std::size_t, std::size_t>>& outputs, bool all,
                     std::uint64_t seed) {
  std::vector<Entry> outs;
  if (all) outs = resolve_outputs(m, std::nullopt, true);
  for (const auto& [t, c] : outputs) outs.push_back({t, c});
  if (outs.empty()) outs = resolve_outputs(m, std::nullopt, false);
  const JacobianResult r = jacobian_rank(m, outs, seed);
  py::dict d;
  d["dimension_lower"] = r.rank;
  d["dimension_upper"] = r.upper;
  d["status"] = r.rank >= r.upper ? "exact" : "probabilistic";
  d["failure_probability"] = r.rank >= r.upper ? 0.0 : r.failure_probability;
  d["weights"] = r.weights;
  d["points"] = r.points;
  d["prime"] = r.prime;
  d["seed"] = r.seed;
  py::list o;
  for (const auto& e : r.outputs) o.append(py::make_tuple(e.token, e.channel));
  d["outputs"] = o;
  return d;
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
      limit(python_spelling(e.what()).c_str());
    } catch (const MachineLimit& e) {  // the wall clock's safety net: a limit (exit 3 on the CLI)
      limit(python_spelling(e.what()).c_str());
    } catch (const InputError& e) {
      input(python_spelling(e.what()).c_str());
    } catch (const DomainError& e) {
      input(python_spelling(e.what()).c_str());
    } catch (const CheckFailed& e) {
      check(python_spelling(e.what()).c_str());
    } catch (const InternalError& e) {
      internal(e.what());
    } catch (const Error& e) {
      base(python_spelling(e.what()).c_str());
    } catch (const nlohmann::json::exception& e) {  // JSON that got past the Python side: an input, never a bug
      input((std::string("not netpoly's JSON: ") + e.what()).c_str());
    }
  });

  py::class_<Model>(mod, "Model")
      .def_property_readonly("name", [](const Model& m) { return m.name; })
      .def_property_readonly("tokens", [](const Model& m) { return m.tokens; })
      .def_property_readonly("width", [](const Model& m) { return m.width; })
      .def_property_readonly("output_width", [](const Model& m) { return m.output_width(); })
      .def_property_readonly("depth", [](const Model& m) { return m.layers.size(); })
      .def_property_readonly("gaussian", [](const Model& m) { return m.gaussian(); })
      // a Gaussian weight a+bi counts once (the imaginary parts share the structure)
      .def_property_readonly("params", [](const Model& m) { return parameter_count(m); })
      .def_property_readonly("degree", [](const Model& m) { return estimate_expansion(m).degree; })
      .def_property_readonly("output", [](const Model& m) -> py::object {
        if (!m.output) return py::none();
        return py::make_tuple(m.output->token, m.output->channel);
      })
      .def("to_json", [](const Model& m) { return write_model(m); })
      .def("canonical", [](const Model& m) { return canonical_form(m); })
      .def("__eq__", [](const Model& a, const Model& b) { return a == b; });

  mod.def("make", &make_model, "a preset model (the options of `netpoly make`)");
  mod.def("parse", [](const std::string& text, const std::string& source) {
    Model m = parse_model(text, source);
    validate_model(m, source);
    return m;
  });
  mod.def("load", [](const std::string& path) {
    forget_inputs();  // a run of its own, as check_paths
    return read_model(path);
  });
  // The one writer of output files (io.hpp): through symbolic links, FIFOs and devices written
  // directly, a regular file replaced atomically. A save is a run of its own (as load): the file a
  // model was loaded from may be saved over.
  mod.def("wait_for_stopped_work", &wait_for_stopped_work);
  mod.def("write_output", [](const std::string& path, const std::string& text) {
    forget_inputs();
    py::gil_scoped_release release;
    write_output(path, text);
  });
  mod.def("expand", &expand_model);
  mod.def("evaluate", &evaluate_points);
  mod.def("jacobian_rank", &jacobian_of);
  mod.def("cite", &citation_bibtex);
  mod.def("seprank", &seprank_model);
  mod.def("seprank_poly", &seprank_poly);
  // netpoly.merge: the library's merge of shard files (netpoly/shards.hpp), as the CLI's --merge.
  mod.def("merge_shards", [](const std::vector<std::string>& paths, const Model* m, const std::string& label,
                             std::optional<std::pair<std::size_t, std::size_t>> output,
                             const std::vector<std::string>& parts, const py::dict& kw) {
    ShardModel with;
    with.model = m;
    with.label = label;
    with.options = py_sep_options(kw);
    for (auto [k, v] : kw)
      if (!v.is_none()) with.given.push_back(py::str(k).cast<std::string>());
    if (output) with.output = Entry{output->first, output->second};
    with.partitions = parts;
    return merge_shards(paths, m ? &with : nullptr, {"merge", Spelling::python}).document.dump();
  });
  mod.def("parse_poly", &parse_poly);
  // The analysis options checked by the table (an InputError naming the bad one); their max_terms.
  mod.def("max_terms", [](const py::dict& kw) { return py_sep_options(kw).max_terms; });
  mod.def("bounds", &bounds_for);
  mod.def("bound_ids", &bound_ids);
  mod.def("check", &check_paths);
  mod.def("table", &table_rows);
  mod.def("options", &options_table);
  mod.def("render_rows", &render_rows);
  mod.def("rows_title", [](const std::string& rows_json) {
    std::vector<TableRow> rows;
    for (const auto& j : json::parse(rows_json)) rows.push_back(TableRow::from_json(j));
    return rows_title(rows);
  });
  // The bound curves of Rows.plot's depth plot, as plot.cpp chooses them:
  // bounds None (the paper default), "all", or a list of ids.
  mod.def("plot_bounds", [](const std::string& rows_json, const py::object& bounds) {
    std::vector<TableRow> rows;
    for (const auto& j : json::parse(rows_json)) rows.push_back(TableRow::from_json(j));
    TableView view;
    if (py::isinstance<py::str>(bounds)) view.all_bounds = bounds.cast<std::string>() == "all";
    else if (!bounds.is_none()) view.bounds = bounds.cast<std::vector<std::string>>();
    return plot_bounds(rows, view);
  });
  mod.def("decimal", &decimal);
  mod.def("hexadecimal", &hexadecimal);
  mod.def("var_name", [](std::size_t width, slong v) { return var_name(width, v); });
}
