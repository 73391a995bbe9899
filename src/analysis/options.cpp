// The analysis options' one table (options.hpp): each entry says what the
// option is and which field it sets; the CLI, Python and the claim language
// read it, so an option exists in one place.
#include "netpoly/options.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "netpoly/error.hpp"
#include "runtime/limits.hpp"
#include "netpoly/model.hpp"
#include "runtime/number_text.hpp"

namespace netpoly {

using json = nlohmann::json;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

json methods_json(const std::vector<Method>& ms) {
  json j = json::array();
  for (Method m : ms) j.push_back(method_name(m));
  return j;
}

std::vector<OptionSpec> make_table() {
  std::vector<OptionSpec> t;
  t.push_back({"methods", OptionType::methods, 0, 0, "what is affordable, stopping when the bracket closes",
               "the methods to run, in order: a comma list of " + method_list(","), kEvery,
               [](SepOptions& s, const json& v) {
                 std::string list;
                 for (const auto& w : v) list += (list.empty() ? "" : ",") + w.get<std::string>();
                 s.methods = parse_methods(list);
               },
               [](const SepOptions& s) { return methods_json(s.methods); }});
  t.push_back({"budget", OptionType::seconds, 0, 0,
               "none; the black-box refines while its next round is estimated within 600 s",
               "seconds: methods estimated beyond what is left are skipped, and the analysis stops when it runs out",
               kEvery | kLimits, [](SepOptions& s, const json& v) { s.budget = v.get<double>(); },
               [](const SepOptions& s) { return std::isfinite(s.budget) ? json(s.budget) : json("inf"); }});
  t.push_back({"max_terms", OptionType::real, 0, 0, "5e7", "refuse expansions estimated larger than this", kEvery | kLimits,
               [](SepOptions& s, const json& v) { s.max_terms = v.get<double>(); },
               [](const SepOptions& s) { return std::isfinite(s.max_terms) ? json(s.max_terms) : json("inf"); }});
  t.push_back({"seed", OptionType::seed, 0, 0,
               "the black-box's seed drawn at random (and printed); 1 for projections and templates",
               "seed of the black-box's random prime and points, projections and templates", kEvery,
               [](SepOptions& s, const json& v) {
                 s.seed = v.get<std::uint64_t>();
                 s.blackbox_seed = s.seed;
               },
               [](const SepOptions& s) { return s.blackbox_seed ? json(*s.blackbox_seed) : json(nullptr); }});
  t.push_back({"prime", OptionType::prime, 0, 0, "the first prime above 2^62; the black-box's is random",
               "prime for modular and grid ranks; the black-box uses it too and then makes no probability statement",
               kEvery, [](SepOptions& s, const json& v) { s.prime = v.get<ulong>(); },
               [](const SepOptions& s) { return s.prime ? json(s.prime) : json(nullptr); }});
  t.push_back({"templates", OptionType::templates, 1, 1024, "automatic",
               "grid: templates per token (1..1024), or the template vectors themselves (rows of rationals, each of "
               "the model's width)",
               kEvery,
               [](SepOptions& s, const json& v) {
                 if (v.is_number()) {
                   s.templates = v.get<std::size_t>();
                   s.template_vectors.clear();
                   return;
                 }
                 s.template_vectors.clear();
                 for (const auto& row : v) {
                   std::vector<Fmpq> r;
                   for (const auto& x : row) {
                     Fmpq q;
                     parse_rational(x.get<std::string>(), q);
                     r.push_back(q);
                   }
                   s.template_vectors.push_back(std::move(r));
                 }
               },
               [](const SepOptions& s) {
                 if (s.template_vectors.empty()) return json(s.templates);
                 json rows = json::array();
                 for (const auto& r : s.template_vectors) {
                   json row = json::array();
                   for (const auto& x : r) row.push_back(x.str());
                   rows.push_back(row);
                 }
                 return rows;
               }});
  t.push_back({"max_points", OptionType::count, 1, 1 << 20,
               "as many as the budget allows, never more than the best certified upper bound + 1",
               "blackbox: most points per side (per block when split)", kEvery | kTable,
               [](SepOptions& s, const json& v) { s.max_points = v.get<std::size_t>(); },
               [](const SepOptions& s) { return json(s.max_points); }});
  t.push_back({"small_prime", OptionType::flag, 0, 0, "on",
               "blackbox: a first phase at a small random prime (its ranks are certified lower bounds and make sep "
               "exact when they meet the best certified upper bound)",
               kEvery, [](SepOptions& s, const json& v) { s.small_prime_first = v.get<bool>(); },
               [](const SepOptions& s) { return json(s.small_prime_first); }});
  t.push_back({"generic", OptionType::flag, 0, 0, "off: the sep of this network",
               "the generic sep of the model's shape (every weight an indeterminate): weight-independent upper "
               "bounds and the black-box at weights drawn at random mod its prime",
               kEvery, [](SepOptions& s, const json& v) { s.generic = v.get<bool>(); },
               [](const SepOptions& s) { return json(s.generic); }});
  t.push_back({"max_memory", OptionType::memory, 0, 0, "half the machine's memory",
               "stop (printing what finished) beyond this resident size, e.g. 8G", kCli | kPython | kLimits,
               [](SepOptions& s, const json& v) { s.max_memory = v.get<double>(); },
               [](const SepOptions& s) { return json(s.max_memory); }});
  t.push_back({"threads", OptionType::count, 0, 256, "0: every core", "threads (0 = every core)",
               kCli | kPython | kTable | kExpand,
               [](SepOptions& s, const json& v) { s.threads = v.get<unsigned>(); },
               [](const SepOptions& s) { return json(s.threads); }});
  t.push_back({"max_pairs", OptionType::real, 0, 0, "1e5", "refuse more (output, partition) pairs than this",
               kCli | kPython, [](SepOptions& s, const json& v) { s.max_pairs = v.get<double>(); },
               [](const SepOptions& s) { return std::isfinite(s.max_pairs) ? json(s.max_pairs) : json("inf"); }});
  // The black-box's blocks across a cluster (docs/guide/slurm.md). Not in
  // claims: a claim's sep is the whole bracket, never a plan or a share.
  t.push_back({"plan", OptionType::flag, 0, 0, "off",
               "blackbox: describe its blocks (width, cap, points, memory, time at the small prime) without "
               "computing them; with --blocks, the share's",
               kCli | kPython, [](SepOptions& s, const json& v) { s.plan = v.get<bool>(); },
               [](const SepOptions& s) { return json(s.plan); }});
  t.push_back({"blocks", OptionType::share, 1, 1 << 20, "every block",
               "blackbox: compute only share I of N of its blocks mod the small prime drawn from --seed (a "
               "certified shard; seprank --merge sums the shards)",
               kCli | kPython,
               [](SepOptions& s, const json& v) {
                 const std::string t = v.get<std::string>();
                 const auto slash = t.find('/');
                 s.share_index = std::stoul(t.substr(0, slash));
                 s.share_count = std::stoul(t.substr(slash + 1));
               },
               [](const SepOptions& s) {
                 return s.share_count ? json(std::to_string(s.share_index) + "/" + std::to_string(s.share_count))
                                      : json(nullptr);
               }});
  return t;
}

std::string type_text(const OptionSpec& o) {
  switch (o.type) {
    case OptionType::flag: return "true or false";
    case OptionType::count:
      return "a whole number in [" + std::to_string(static_cast<std::uint64_t>(o.lo)) + ", " +
             std::to_string(static_cast<std::uint64_t>(o.hi)) + "]";
    case OptionType::seconds: return "a positive number of seconds (or inf)";
    case OptionType::real: return "a whole number >= 1 such as 5e7 (or inf)";
    case OptionType::seed: return "a whole number in [0, 2^64)";
    case OptionType::prime: return "a prime below 2^63";
    case OptionType::methods: return "a comma list of " + method_list(",");
    case OptionType::memory: return "a size in bytes, or with a unit such as 512M or 8G";
    case OptionType::templates: return "a whole number in [1, 1024], or rows of rationals (integers or \"p/q\")";
    case OptionType::share: return "I/N with 1 <= I <= N <= " + std::to_string(static_cast<std::uint64_t>(o.hi));
  }
  return "";
}

// The method names of a comma list or a list of strings (parse_methods' checks).
json method_names(const json& v) {
  std::string text;
  if (v.is_string()) {
    text = v.get<std::string>();
  } else if (v.is_array()) {
    for (const auto& w : v) {
      if (!w.is_string()) return json::array();
      text += (text.empty() ? "" : ",") + w.get<std::string>();
    }
  } else {
    return json::array();
  }
  json list = json::array();
  for (Method m : parse_methods(text)) list.push_back(method_name(m));
  return list;
}

[[noreturn]] void bad(const OptionSpec& o, Spelling s, const std::string& got) {
  throw InputError(option_spelling(o, s) + ": expected " + type_text(o) + ", got " + got);
}

std::string shown(const json& v) {
  std::string t = v.dump();
  return clip(t, 60);
}

// A whole number of the JSON value (an integer, never a float or a bool).
std::uint64_t whole(const OptionSpec& o, Spelling s, const json& v, double lo, double hi) {
  if (!v.is_number_integer()) bad(o, s, shown(v));
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0) bad(o, s, shown(v));
  const std::uint64_t x = v.get<std::uint64_t>();
  if (static_cast<double>(x) < lo || static_cast<double>(x) > hi) bad(o, s, shown(v));
  return x;
}

// A positive number (inf allowed); NaN, 0, negatives and non-numbers refused.
double positive(const OptionSpec& o, Spelling s, const json& v) {
  double x = 0;
  if (v.is_string() && (v == "inf" || v == "infinity")) x = kInf;
  else if (v.is_number() && !v.is_boolean()) x = v.get<double>();
  else bad(o, s, shown(v));
  if (!(x > 0)) bad(o, s, shown(v));
  return x;
}

// Checks v and brings it to the form the table's setter reads.
json checked(const OptionSpec& o, const json& v, Spelling s) {
  switch (o.type) {
    case OptionType::flag:
      if (!v.is_boolean()) bad(o, s, shown(v));
      return v;
    case OptionType::count: return whole(o, s, v, o.lo, o.hi);
    case OptionType::seconds: return positive(o, s, v);
    case OptionType::real: {  // a count written as a number (5e7): 1.5 terms is no limit one can mean
      const double x = positive(o, s, v);
      if (std::isfinite(x) && (x < 1 || x != std::floor(x))) bad(o, s, shown(v));
      return x;
    }
    case OptionType::seed: return whole(o, s, v, 0, 0x1p64);
    case OptionType::prime: {
      const std::uint64_t p = whole(o, s, v, 2, 0x1p63);
      require_prime_modulus(p, option_spelling(o, s));
      return p;
    }
    case OptionType::methods: {
      json list = json::array();
      try {
        list = method_names(v);
      } catch (const InputError&) {
        bad(o, s, shown(v));  // unknown names, named as this front end spells the option
      }
      if (list.empty()) bad(o, s, shown(v));
      return list;
    }
    case OptionType::memory:
      if (v.is_string()) return parse_memory_size(v.get<std::string>(), option_spelling(o, s));
      return positive(o, s, v);
    case OptionType::templates: {
      if (v.is_number_integer()) return whole(o, s, v, o.lo, o.hi);
      if (!v.is_array() || v.empty()) bad(o, s, shown(v));
      json rows = json::array();
      for (std::size_t k = 0; k < v.size(); ++k) {
        if (!v[k].is_array() || v[k].empty())
          throw InputError(option_spelling(o, s) + "[" + std::to_string(k) + "]: expected a list of numbers");
        json row = json::array();
        for (const auto& x : v[k]) {
          Fmpq q;
          const std::string text = x.is_number_integer() ? x.dump() : x.is_string() ? x.get<std::string>() : "";
          if (text.empty() || !parse_rational(text, q))
            throw InputError(option_spelling(o, s) + "[" + std::to_string(k) +
                             "]: expected integers or \"p/q\" (no floats), got " + shown(x));
          row.push_back(q.str());
        }
        rows.push_back(row);
      }
      return rows;
    }
    case OptionType::share: {
      // digits "/" digits, 1 <= i <= n <= hi
      const std::string t = v.is_string() ? v.get<std::string>() : "";
      const auto slash = t.find('/');
      auto digits = [](const std::string& x) {
        return !x.empty() && x.size() <= 9 && x.find_first_not_of("0123456789") == std::string::npos;
      };
      if (slash == std::string::npos || !digits(t.substr(0, slash)) || !digits(t.substr(slash + 1))) bad(o, s, shown(v));
      const std::uint64_t i = std::stoull(t.substr(0, slash)), n = std::stoull(t.substr(slash + 1));
      if (i < 1 || i > n || static_cast<double>(n) > o.hi) bad(o, s, shown(v));
      return std::to_string(i) + "/" + std::to_string(n);
    }
  }
  return v;
}

}  // namespace

std::string budget_text(const SepOptions& o) {
  const std::string b = fmt_g(o.budget);
  return o.budget_is_default ? std::string("the default refinement budget of ") + b + " s (--budget to change)"
                             : std::string("--budget ") + b + " s";
}

// What the other commands read their own way: each one's default and help
// (the run limits are declared here once, and each command's flags and
// keywords are made from them).
void add_command_texts(std::vector<OptionSpec>& t) {
  auto at = [&](const char* name, unsigned scope, std::string def, std::string help) {
    for (auto& o : t)
      if (o.name == name) {
        if (!(o.scope & scope)) throw InternalError(std::string("option table: ") + name + " has no such scope");
        o.for_command.push_back({scope, std::move(def), std::move(help)});
        return;
      }
    throw InternalError(std::string("option table: no option ") + name);
  };
  at("budget", kTable, "none; 30 s a method with --param-budget",
     "seconds: a row's method whose estimated cost exceeds this is skipped");
  at("budget", kCheck, "60 nominal seconds",
     "nominal seconds per rank method and call (fixed-rate estimates of the work, the same on every machine); a "
     "quantity that cannot be made exact within it stays a bracket. The wall clock is only a safety net of 10 x "
     "this per claim (ERROR, exit 3)");
  at("budget", kExpand, "none", "seconds: stop (exit 3) after this many");
  at("max_points", kTable, "1024, so that a sweep's rows keep their cost",
     "blackbox: most points per side (per block when split)");
  at("max_memory", kTable, "half the machine's memory",
     "stop (exit 3; finished rows stay in the journal) beyond this resident size, e.g. 8G");
  at("max_memory", kCheck, "half the machine's memory",
     "stop (exit 3, printing the finished claims) beyond this resident size, e.g. 8G");
  at("max_memory", kExpand, "half the machine's memory",
     "stop (exit 3, printing what finished) beyond this resident size, e.g. 8G");
  at("threads", kExpand, "0: every core", "threads for FLINT multiplication (0 = every core)");
}

const std::vector<OptionSpec>& analysis_options() {
  static const std::vector<OptionSpec> t = [] {
    auto r = make_table();
    add_command_texts(r);
    return r;
  }();
  return t;
}

const std::string& OptionSpec::default_for(unsigned s) const {
  for (const auto& c : for_command)
    if (c.scope == s) return c.default_text;
  return default_text;
}

const std::string& OptionSpec::help_for(unsigned s) const {
  for (const auto& c : for_command)
    if (c.scope == s) return c.help;
  return help;
}

const OptionSpec* find_option(const std::string& name) {
  for (const auto& o : analysis_options())
    if (o.name == name) return &o;
  return nullptr;
}

std::string option_spelling(const OptionSpec& o, Spelling s) {
  if (s == Spelling::python) return o.name + "=";
  if (s == Spelling::claims) return o.name + " =";
  std::string f = o.name;
  std::replace(f.begin(), f.end(), '_', '-');
  return "--" + f;
}

std::string option_names(unsigned scope, Spelling s) {
  std::string r;
  for (const auto& o : analysis_options())
    if (o.scope & scope) {
      std::string n = option_spelling(o, s);
      if (s != Spelling::cli) n = o.name;
      r += (r.empty() ? "" : ", ") + n;
    }
  return r;
}

void set_option(SepOptions& so, const OptionSpec& o, const OptionValue& v, Spelling s) {
  o.set(so, checked(o, v, s));
}

void set_option(SepOptions& so, const std::string& name, const OptionValue& v, Spelling s, unsigned scope) {
  const OptionSpec* o = find_option(name);
  if (!o || !(o->scope & scope)) {
    const std::string shown_name = s == Spelling::cli ? "--" + name : name;
    throw InputError("unknown option '" + shown_name + "' (expected one of " + option_names(scope, s) + ")");
  }
  set_option(so, *o, v, s);
}

OptionValue option_from_text(const OptionSpec& o, const std::string& text, Spelling s) {
  auto digits = [&] {
    if (text.empty() || text.size() > 40 || text.find_first_not_of("0123456789") != std::string::npos)
      bad(o, s, "\"" + clip(text, 40) + "\"");
    // 2^64 and beyond: refused as out of range, not wrapped.
    std::uint64_t v = 0;
    for (char c : text) {
      const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
      if (v > (UINT64_MAX - d) / 10) bad(o, s, text);
      v = v * 10 + d;
    }
    return json(v);
  };
  switch (o.type) {
    case OptionType::flag:
      if (text == "true") return true;
      if (text == "false") return false;
      bad(o, s, "\"" + text + "\"");
    case OptionType::count:
    case OptionType::seed:
    case OptionType::prime: return digits();
    case OptionType::templates: return digits();  // the CLI's rows come from --templates-file
    case OptionType::seconds:
    case OptionType::real: {
      if (text == "inf" || text == "infinity") return "inf";
      // a plain decimal number: strtod alone would take " 8", "0x8" and "nan"
      if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos ||
          !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.' || text[0] == '-'))
        bad(o, s, "\"" + clip(text, 40) + "\"");
      char* end = nullptr;
      const double x = std::strtod(text.c_str(), &end);
      if (!end || *end) bad(o, s, "\"" + clip(text, 40) + "\"");
      return x;
    }
    case OptionType::methods:
    case OptionType::memory:
    case OptionType::share: return text;
  }
  return text;
}

void set_options_from_text(SepOptions& sep, const std::vector<std::pair<std::string, std::string>>& given) {
  for (const auto& [name, text] : given) {
    const OptionSpec* spec = find_option(name);
    if (!spec) throw InternalError("a flag of no option: " + name);
    set_option(sep, *spec, option_from_text(*spec, text), Spelling::cli);
  }
}

SepOptions resolved(const SepOptions& so) {
  SepOptions r = so;
  if (r.max_points == 0) r.max_points = std::size_t{1} << 20;
  if (!std::isfinite(r.budget)) {
    r.budget = kDefaultRefineSeconds;
    r.budget_is_default = true;
  }
  return r;
}

json options_json(const SepOptions& so) {
  json j = json::object();
  for (const auto& o : analysis_options()) j[o.name] = o.get(so);
  return j;
}

}  // namespace netpoly
