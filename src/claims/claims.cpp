// Running claims: quantifiers, instance counts, counterexamples (claims.hpp).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>

#include "claims/eval/claim_eval.hpp"
#include "claims/eval/work_limits.hpp"
#include "claims/report/claim_report.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "runtime/number_text.hpp"

namespace netpoly {

using namespace claims_detail;

namespace {

// Verdicts of sub-trees, plus `skip` for instances an `assume` filtered out
// and `vacuous` for a `for` none of whose instances reached the checks.
enum class Res { pass, pass_probabilistic, inconclusive, fail, skip, vacuous };

Res from_verdict(Verdict v) {
  switch (v) {
    case Verdict::pass:
      return Res::pass;
    case Verdict::pass_probabilistic:
      return Res::pass_probabilistic;
    case Verdict::inconclusive:
      return Res::inconclusive;
    case Verdict::fail:
      return Res::fail;
  }
  return Res::inconclusive;
}

Verdict to_verdict(Res r) {
  switch (r) {
    case Res::pass:
      return Verdict::pass;
    case Res::pass_probabilistic:
      return Verdict::pass_probabilistic;
    case Res::fail:
      return Verdict::fail;
    default:
      return Verdict::inconclusive;
  }
}

bool nothing(Res r) { return r == Res::skip || r == Res::vacuous; }

// A sub-tree's verdict, and when it is a probabilistic pass, the probability
// that it is wrong (over the black-box ranks' random primes and points).
struct Out {
  Res res = Res::skip;
  double eps = 0;
  Out(Res r, double e = 0) : res(r), eps(r == Res::pass_probabilistic ? e : 0) {}  // NOLINT: implicit by design
};

// for all: every instance must pass (skipped and vacuous ones do not count);
// wrong if one of its probabilistic passes is (a union bound)
Out all_of(const Out& acc, const Out& r) {
  if (nothing(r.res)) return acc;
  if (nothing(acc.res)) return r;
  return {std::max(acc.res, r.res), acc.eps + r.eps};
}

// exists: one passing instance suffices (skipped ones do not count); a
// probabilistic pass is wrong only if its least doubtful witness is
Out any_of(const Out& acc, const Out& r) {
  if (r.res == Res::skip) return acc;
  if (acc.res == Res::skip) return r;
  const Res best = std::min(acc.res, r.res);
  double eps = 0;
  if (acc.res == Res::pass_probabilistic && r.res == Res::pass_probabilistic)
    eps = std::min(acc.eps, r.eps);
  else
    eps = acc.res == Res::pass_probabilistic ? acc.eps : r.eps;
  return {best, eps};
}

class Runner {
 public:
  Runner(const Claim& c, const CheckOptions& o, ClaimResult& out) : c_(c), o_(o), ev_(c, o), out_(out) {
    for (const auto& cl : c.clauses) has_exists_ = has_exists_ || cl.kind == Clause::Kind::exists;
  }

  Out run() { return walk(0); }

  Evaluator& evaluator() { return ev_; }
  std::optional<InstanceReport> fail_report, inconclusive_report, pass_report;
  Env fail_env;  // the bindings of fail_report's instance (for --counterexamples)

 private:
  Out walk(std::size_t i) {
    if (i == c_.clauses.size()) return leaf(std::nullopt, "");
    const Clause& cl = c_.clauses[i];
    current_ = &cl;
    try {
      switch (cl.kind) {
        case Clause::Kind::for_all:
        case Clause::Kind::exists:
          return quantifier(i, cl);
        case Clause::Kind::let: {
          Value v;
          try {
            v = ev_.eval(*cl.value, env_);
          } catch (const NeedsDraws&) {  // after a weight quantifier: evaluated at each draw
            v.kind = Value::Kind::string;
            v.deferred = std::make_shared<const Deferred>(Deferred{cl.value.get()});
          }
          env_.emplace_back(cl.name, std::move(v));
          const Out r = walk(i + 1);
          env_.pop_back();
          return r;
        }
        case Clause::Kind::assume: {
          CheckReport rep{cl.loc, cl.text, Verdict::inconclusive, "", {}};
          RelOutcome o = ev_.condition(cl.cond, env_, &rep.values);
          rep.verdict = o.verdict;
          rep.note = o.note;
          rep.failure_probability = o.failure_probability;
          if (o.verdict == Verdict::fail) {
            ++out_.skipped;
            return Res::skip;
          }
          if (o.verdict == Verdict::inconclusive) return leaf(rep, "the assumption could not be decided");
          if (o.verdict == Verdict::pass) return walk(i + 1);
          // probabilistic assumption: the instance is at best a probabilistic pass
          checks_.push_back(rep);
          const Out r = walk(i + 1);
          checks_.pop_back();
          return r;
        }
        case Clause::Kind::check: {
          CheckReport rep{cl.loc, cl.text, Verdict::inconclusive, "", {}};
          RelOutcome o = quantified_condition(cl, rep);
          rep.verdict = o.verdict;
          rep.note = o.note;
          rep.failure_probability = o.failure_probability;
          checks_.push_back(std::move(rep));
          const Out r = walk(i + 1);
          checks_.pop_back();
          return r;
        }
        case Clause::Kind::show: {
          std::string line;
          for (const auto& [name, val] : env_)
            if (val.kind == Value::Kind::number || val.kind == Value::Kind::net || val.kind == Value::Kind::output ||
                val.kind == Value::Kind::partition)
              line += (line.empty() ? "" : ", ") + name + " = " + display(val, 60);
          line += line.empty() ? "" : ": ";
          for (std::size_t k = 0; k < cl.shows.size(); ++k)
            line += (k ? ", " : "") + cl.shows[k]->text + " = " + display(ev_.eval(*cl.shows[k], env_), 60);
          if (out_.shown.size() < kMaxShown)
            out_.shown.push_back(line);
          else if (out_.shown.size() == kMaxShown)
            out_.shown.push_back("... (more not shown)");
          return walk(i + 1);
        }
        case Clause::Kind::weights: {
          const WeightQuantifier saved = ev_.weights();
          ev_.set_weights(cl.weights);
          struct Restore {
            Evaluator& ev;
            WeightQuantifier w;
            ~Restore() { ev.set_weights(w); }
          } restore{ev_, saved};
          return walk(i + 1);
        }
        case Clause::Kind::using_: {
          const SepOptions saved = ev_.defaults();
          ev_.apply_using(cl.options, env_);
          const Out r = walk(i + 1);
          ev_.set_defaults(saved);
          return r;
        }
      }
    } catch (const NeedsDraws& x) {
      throw InputError(x.at.str() + ": " + x.what +
                       " reads the weights of a network: under a weight quantifier only a `let` or a `check` may "
                       "read them (they run at drawn weights); a `for`, `assume` or `show` runs once for the shape");
    } catch (const LimitError& e) {
      current_ = &cl;
      return leaf(std::nullopt, e.what());
    } catch (const FlintFailure& e) {
      current_ = &cl;
      return leaf(std::nullopt, e.what());
    } catch (const std::bad_alloc&) {
      current_ = &cl;
      return leaf(std::nullopt, "out of memory");
    } catch (const InputError& e) {
      // Give run-time input errors the clause's location.
      const std::string msg = e.what();
      if (msg.rfind(cl.loc.file + ":", 0) == 0) throw;
      throw InputError(cl.loc.str() + ": " + msg);
    }
    return Res::inconclusive;
  }

  RelOutcome quantified_condition(const Clause& cl, CheckReport& rep) {
    // The reported instance's counterexample (the first failing one's) is re-checked before it is written.
    return weight_quantified_condition(ev_, env_, cl, rep, !fail_report);
  }

  // for / exists over the union of the generators' values. A `for` none of
  // whose instances reached the checks is vacuous.
  Out quantifier(std::size_t i, const Clause& cl) {
    std::vector<Value> vals;
    for (const auto& g : cl.gens)
      for (auto& v : ev_.generate(*g, env_)) vals.push_back(std::move(v));
    // The instances of this clause and the ones around it, estimated before any runs.
    const double planned = outer_ * static_cast<double>(std::max<std::size_t>(vals.size(), 1));
    if (planned > kMaxInstances) {
      stopped_ = true;
      throw LimitError(cl.loc.str() + ": " + cl.text + ": " + fmt_g(outer_) + " x " +
                       std::to_string(vals.size()) + " = " + fmt_g(planned) +
                       " instances of the claim, more than 10^6 (the limit of instances of one claim, "
                       "proofs/README.md); split the range or bind fewer values");
    }
    struct Restore {
      double& v;
      double old;
      ~Restore() { v = old; }
    } restore{outer_, outer_};
    outer_ = planned;
    if (cl.kind == Clause::Kind::exists) return exists(i, cl, vals);
    Out acc = Res::vacuous;
    for (std::size_t k = 0; k < vals.size() && !stopped_; ++k) {
      over_claim_budget(cl, k, vals.size());
      env_.emplace_back(cl.name, vals[k]);
      acc = all_of(acc, walk(i + 1));
      env_.pop_back();
    }
    return acc;
  }

  // --budget is over the whole claim, in nominal seconds (work_limits.hpp):
  // no further value once it is spent (LimitError: INCONCLUSIVE, the same on
  // every machine). The wall clock's safety net is over the whole claim too:
  // once it is passed, no verdict (MachineLimit: ERROR).
  void over_claim_budget(const Clause& cl, std::size_t k, std::size_t n) {
    if (k == 0) return;
    if (ev_.claim_left() < 0) {
      stopped_ = true;
      throw LimitError(cl.loc.str() + ": " + cl.text + ": the claim stopped at " + budget_text(ev_.defaults()) +
                       " (nominal seconds, over the whole claim) after " + std::to_string(k) + " of " +
                       std::to_string(n) + " values; the rest were not tried; raise --budget");
    }
    if (ev_.claim_wall_left() >= 0) return;
    stopped_ = true;
    throw MachineLimit(cl.loc.str() + ": " + cl.text + ": the wall clock's safety net (" +
                       fmt_g(kSafetyFactor) + " x " + budget_text(ev_.defaults()) +
                       ", over the whole claim) was reached after " + std::to_string(k) + " of " + std::to_string(n) +
                       " values, before the work's own limits: the machine was too slow or too loaded for this "
                       "claim, so no verdict (raise --budget, or run it where it has the cores)");
  }

  // exists: the best value's first passing instance is the witness (of
  // probabilistic ones, the least doubtful's). A value
  // whose sub-tree is vacuous (a nested `for` with no instance) is neither a
  // witness nor a counterexample: undecided. No value left (an empty
  // generator, or an `assume` in this scope that removed every value) makes
  // the exists false. Reports of instances inside an exists that did not
  // fail (its non-witnesses) are not the claim's counterexample.
  Out exists(std::size_t i, const Clause& cl, const std::vector<Value>& vals) {
    const auto fail0 = fail_report;
    const Env fail_env0 = fail_env;
    const auto inconclusive0 = inconclusive_report;
    const std::string where = "exists " + cl.name + " (line " + std::to_string(cl.loc.line) + ")";
    Out acc = Res::skip;
    std::optional<InstanceReport> witness;
    Res witness_res = Res::skip;
    double witness_eps = 0;
    for (std::size_t k = 0; k < vals.size() && !stopped_; ++k) {
      over_claim_budget(cl, k, vals.size());
      std::optional<InstanceReport> saved = std::exchange(pass_report, std::nullopt);
      env_.emplace_back(cl.name, vals[k]);
      Out out = walk(i + 1);
      env_.pop_back();
      Res& r = out.res;
      if (r == Res::vacuous) {
        note(where + ": for " + cl.name + " = " + display(vals[k], 60) +
             " no instance of the clauses after it reached the checks (a `for` over nothing holds vacuously): "
             "counted as undecided, not as a witness");
        r = Res::inconclusive;
      }
      // the witness: the best verdict's, among probabilistic ones the least doubtful
      if ((r == Res::pass || r == Res::pass_probabilistic) &&
          (witness_res == Res::skip || r < witness_res || (r == witness_res && out.eps < witness_eps))) {
        witness = pass_report;
        witness_res = r;
        witness_eps = out.eps;
      }
      pass_report = std::move(saved);
      acc = any_of(acc, out);
      if (r == Res::pass) {
        if (k + 1 < vals.size()) note(where + ": a witness was found; the remaining values were not tried");
        break;
      }
    }
    if (witness && !pass_report) pass_report = witness;
    if (acc.res == Res::skip) acc = no_value(cl, vals.empty());
    if (acc.res != Res::fail) {
      fail_report = fail0;
      fail_env = fail_env0;
    }
    if (acc.res == Res::pass || acc.res == Res::pass_probabilistic) inconclusive_report = inconclusive0;
    return acc;
  }

  // An exists with no value: one failed instance, the bindings above it its counterexample.
  Out no_value(const Clause& cl, bool empty) {
    CheckReport rep{cl.loc, cl.text, Verdict::fail,
                    empty ? "the generator is empty: no value of " + cl.name + " exists"
                          : "every value of " + cl.name + " was skipped by an assume: none exists",
                    {}};
    ++out_.instances;
    ++out_.failed;
    if (!fail_report) {
      fail_report = capture("counterexample", &rep, "");
      fail_env = env_;
    }
    return Res::fail;
  }

  // One instance: every check on the path must hold. `forced` (an undecided
  // assumption) or a resource limit makes it inconclusive.
  Out leaf(const std::optional<CheckReport>& forced, const std::string& limit) {
    ++out_.instances;
    Res v = Res::pass;
    double eps = 0;  // a union bound over the probabilistic checks (and assumptions) on the path
    for (const auto& ch : checks_) {
      v = std::max(v, from_verdict(ch.verdict));
      if (ch.verdict == Verdict::pass_probabilistic) eps += ch.failure_probability;
    }
    if (forced || !limit.empty()) v = std::max(v, Res::inconclusive);
    switch (v) {
      case Res::pass:
        ++out_.passed;
        break;
      case Res::pass_probabilistic:
        ++out_.passed_probabilistic;
        break;
      case Res::fail:
        ++out_.failed;
        break;
      default:
        ++out_.inconclusive;
        break;
    }
    const std::optional<CheckReport>& extra = forced;
    auto here = [&](const std::string& kind) { return capture(kind, extra ? &*extra : nullptr, limit); };
    if (v == Res::fail && !fail_report) {
      fail_report = here(has_exists_ ? "example" : "counterexample");
      fail_env = env_;
    }
    if (v == Res::inconclusive && !inconclusive_report) inconclusive_report = here("example");
    if ((v == Res::pass || v == Res::pass_probabilistic) && has_exists_ && !pass_report) pass_report = here("witness");
    return {v, eps};
  }

  // The current instance: its bindings, the checks on its path (and `extra`), the limit that stopped it.
  InstanceReport capture(const std::string& kind, const CheckReport* extra, const std::string& limit) const {
    InstanceReport r;
    r.kind = kind;
    r.index = out_.instances;
    for (const auto& [name, val] : env_) r.bindings.emplace_back(name, display(val));
    r.checks = checks_;
    if (extra) r.checks.push_back(*extra);
    if (!limit.empty()) r.error = limit + (current_ ? " (at line " + std::to_string(current_->loc.line) + ")" : "");
    return r;
  }

  void note(const std::string& s) {
    if (std::find(out_.notes.begin(), out_.notes.end(), s) == out_.notes.end()) out_.notes.push_back(s);
  }


 public:
 private:
  const Claim& c_;
  const CheckOptions& o_;
  Evaluator ev_;
  ClaimResult& out_;
  Env env_;
  std::vector<CheckReport> checks_;
  bool has_exists_ = false;
  const Clause* current_ = nullptr;
  // The instances a `for`/`exists` may make (the product of the nested
  // generators' sizes, estimated before running them): at most 10^6.
  static constexpr double kMaxInstances = 1e6;
  double outer_ = 1;      // the product of the enclosing generators' sizes
  bool stopped_ = false;  // a limit of the whole claim was reached: no further instance
};

}  // namespace

ClaimResult run_claim(const Claim& c, const CheckOptions& o) {
  ClaimResult out;
  out.file = c.loc.file;
  out.loc = c.loc;
  out.title = c.title;
  const auto t0 = std::chrono::steady_clock::now();
  Runner run(c, o, out);
  try {
    const Out r = run.run();
    if (nothing(r.res) || out.instances == 0) {
      out.verdict = Verdict::inconclusive;
      out.notes.push_back("no instance reached the checks (every generator was empty or every instance was skipped)");
    } else {
      out.verdict = to_verdict(r.res);
      out.failure_probability = r.eps;
    }
    if (out.verdict == Verdict::fail) {
      out.report = run.fail_report;
      if (out.report) write_weight_counterexamples(c, o, *out.report);
      if (out.report && !o.counterexamples_dir.empty()) {
        const std::string failed = write_counterexample_files(c, o, run.fail_env, *out.report);
        if (!failed.empty()) out.notes.push_back(failed);
      }
    }
    else if (out.verdict == Verdict::inconclusive)
      out.report = run.inconclusive_report;
    else
      out.report = run.pass_report;
  } catch (const InputError& e) {
    out.error = true;
    out.error_message = e.what();
  } catch (const DomainError& e) {
    out.error = true;
    out.error_message = e.what();
  } catch (const MachineLimit& e) {
    out.error = true;
    out.error_limit = true;
    out.error_message = e.what();
  } catch (const Error& e) {
    out.error = true;
    out.error_message = e.what();
  } catch (const std::exception& e) {
    out.error = true;
    out.error_message = std::string("internal error: ") + e.what();
  }
  if (out.error) out.verdict = Verdict::inconclusive;
  // One line per quantity text (the same text at two places counts together).
  for (const auto& [id, s] : run.evaluator().stats) {
    auto it = std::find_if(out.quantities.begin(), out.quantities.end(),
                           [&text = s.first->text](const QuantityStats& q) { return q.text == text; });
    if (it == out.quantities.end()) {
      out.quantities.push_back({s.first->loc, s.first->text, s.second});
    } else {
      for (const auto& [st, n] : s.second) it->status[st] += n;
    }
  }
  for (const auto& n : run.evaluator().notes)
    if (std::find(out.notes.begin(), out.notes.end(), n) == out.notes.end()) out.notes.push_back(n);
  out.bounds_used = run.evaluator().bounds_used;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

// ------------------------------------------------------------------ loading
namespace {

void check_models(const Expr& e, Claim& c) {
  if (e.kind == Expr::Kind::call && e.str == "model") {
    std::string path;
    for (const auto& a : e.args)
      if (a.name.empty()) {
        path = a.value->str;
        break;
      }
    const std::string full = !path.empty() && path[0] == '/' ? path : c.base_dir + "/" + path;
    try {
      (void)read_model(full);
    } catch (const InputError& x) {
      throw InputError(e.loc.str() + ": expected a readable model file: " + x.what());
    }
    if (std::find(c.reads.begin(), c.reads.end(), full) == c.reads.end()) c.reads.push_back(full);
  }
  for (const auto& k : e.kids) check_models(*k, c);
  for (const auto& a : e.args) check_models(*a.value, c);
  if (e.part) {
    for (const auto& i : e.part->items) check_models(*i, c);
    if (e.part->value) check_models(*e.part->value, c);
  }
}

}  // namespace

std::vector<ClaimFile> load_claim_paths(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> here;
      for (const auto& ent : fs::recursive_directory_iterator(p, ec))
        if (ent.is_regular_file() && ent.path().extension() == ".np") here.push_back(ent.path().string());
      std::sort(here.begin(), here.end());
      if (here.empty()) throw InputError(p + ": no .np files in this directory");
      files.insert(files.end(), here.begin(), here.end());
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    } else {
      throw InputError(p + ": no such file or directory");
    }
  }
  std::vector<ClaimFile> out;
  for (const auto& f : files) out.push_back(parse_claim_file(f));
  for (auto& f : out)
    for (auto& c : f.claims)
      for (const auto& cl : c.clauses) {
        for (const auto& g : cl.gens) check_models(*g, c);
        if (cl.value) check_models(*cl.value, c);
        for (const auto& t : cl.cond.terms) check_models(*t, c);
      }
  return out;
}

std::vector<const Claim*> select_claims(const std::vector<ClaimFile>& files, const std::string& filter) {
  auto low = [](std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  const std::string f = low(filter);
  std::vector<const Claim*> out;
  for (const auto& file : files)
    for (const auto& c : file.claims)
      if (f.empty() || low(c.title).find(f) != std::string::npos) out.push_back(&c);
  return out;
}

std::vector<ClaimResult> run_claims(const std::vector<const Claim*>& claims, const CheckOptions& o,
                                    const std::function<void(std::size_t, const ClaimResult&)>& done,
                                    const std::function<bool(const ClaimResult&)>& stop_after) {
  const std::size_t n = claims.size();
  std::vector<ClaimResult> results(n);
  auto stops = [&](const ClaimResult& r) { return stop_after && stop_after(r); };
  const unsigned jobs = std::max(1u, std::min<unsigned>(o.jobs, static_cast<unsigned>(std::max<std::size_t>(n, 1))));
  if (jobs <= 1) {
    for (std::size_t i = 0; i < n; ++i) {
      results[i] = run_claim(*claims[i], o);
      if (done) done(i, results[i]);
      if (stops(results[i])) {
        results.resize(i + 1);
        break;
      }
    }
    return results;
  }
  std::vector<char> ready(n, 0);
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<std::size_t> next{0};
  // No claim after `limit` starts: the first stopping result known, in order or not.
  std::atomic<std::size_t> limit{n};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < jobs; ++t)
    pool.emplace_back([&] {
      for (std::size_t i; (i = next++) < n && i <= limit;) {
        ClaimResult r = run_claim(*claims[i], o);
        if (stops(r))
          for (std::size_t l = limit; i < l && !limit.compare_exchange_weak(l, i);) {
          }
        std::lock_guard<std::mutex> lock(mu);
        results[i] = std::move(r);
        ready[i] = 1;
        cv.notify_all();
      }
      flint_cleanup();  // this thread's FLINT caches
    });
  std::size_t reported = n;
  for (std::size_t i = 0; i < n; ++i) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return ready[i] != 0; });
    lock.unlock();
    if (done) done(i, results[i]);
    if (stops(results[i])) {
      reported = i + 1;
      break;
    }
  }
  for (auto& th : pool) th.join();
  results.resize(reported);
  return results;
}

}  // namespace netpoly
