// The separation-rank methods: one registry that the scheduler, the CLI's
// help and --methods, the claim language and the documentation read.
//
// Each method lives in one file of src/analysis/methods/ holding its
// MethodInfo and a RegisterMethod object; nothing else names it (the
// constants Method::group ... below are conveniences for the built-in ones).
#pragma once
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netpoly {

// A method, by its registry id ("group", "blackbox", ...).
class Method {
 public:
  constexpr Method() = default;
  constexpr explicit Method(std::string_view id) : id_(id) {}
  constexpr std::string_view id() const { return id_; }
  bool operator==(const Method& o) const { return id_ == o.id_; }
  bool operator<(const Method& o) const { return id_ < o.id_; }
  static const Method group, exact, modular, blackbox, grid, numeric, support;

 private:
  std::string_view id_;
};
inline constexpr Method Method::group{"group"};
inline constexpr Method Method::exact{"exact"};
inline constexpr Method Method::modular{"modular"};
inline constexpr Method Method::blackbox{"blackbox"};
inline constexpr Method Method::grid{"grid"};
inline constexpr Method Method::numeric{"numeric"};
inline constexpr Method Method::support{"support"};

// What a method's value is: which end(s) of the bracket it certifies, or an
// estimate. `none` for a run that was skipped.
enum class RunKind { none, upper, lower, exact, estimate };
const char* run_kind_name(RunKind k);  // "", "upper", "lower", "exact", "estimate"

struct MethodRun;
namespace methods {
struct MethodContext;
}

// Where the default plan places a method (plan()).
struct PlanSlot {
  int expandable = -1;    // position when the network's expansion fits --max-terms; -1: not by default
  int unexpandable = -1;  // position when it does not
  int polynomial = -1;    // position for a polynomial given directly
  // Position for the generic sep of a shape (generic.hpp); -1: the method
  // speaks of one network only (an exact rank of drawn weights is not an
  // upper bound for the generic sep), and is refused there by name.
  int generic = -1;
};

struct MethodInfo {
  Method id;
  int order = 0;                // position in listings (help, errors, docs)
  RunKind kind = RunKind::none;  // what a value certifies
  const char* summary = "";     // one line for help and the docs' method table
  bool needs_expansion = false;     // reads the coefficient matrix of the expansion
  bool accepts_polynomial = false;  // runs on a polynomial given directly
  // Takes a model with Gaussian weights (a+bi): a method that reads the
  // expansion runs on its realified polynomial (gauss_sep.hpp, its numbers
  // halved), one that evaluates the network runs over Q(i) or mod p = 1 mod 4.
  bool gaussian = true;
  PlanSlot plan;
  // By default the method is not started when estimated beyond this (s);
  // asked for by name, only --budget counts.
  double default_cap = std::numeric_limits<double>::infinity();
  // Estimated seconds, checked against --budget before run; nullopt: the
  // method watches the budget itself.
  std::optional<double> (*estimate)(methods::MethodContext&) = nullptr;
  // Whether the method fits this network, entry and partition (nullptr:
  // always); the default plan passes over it silently where it does not,
  // asked for by name it runs and says why it does not fit.
  bool (*applies)(const methods::MethodContext&) = nullptr;
  MethodRun (*run)(methods::MethodContext&) = nullptr;
};

// Every registered method, in `order`.
const std::vector<const MethodInfo*>& method_registry();
// The method's descriptor; throws InputError for an unregistered id.
const MethodInfo& method_info(Method m);
const char* method_name(Method m);
// "group,exact" -> methods (duplicates dropped); throws InputError naming the
// unknown word and every registered method.
std::vector<Method> parse_methods(const std::string& list);
// "group, exact, ..." in registry order (with `sep` between).
std::string method_list(const std::string& sep = ", ");

// The default plan: which methods run, in which order, when none are asked
// for (they stop once the bracket closes). The only place that policy lives.
enum class PlanFor { expandable_network, unexpandable_network, polynomial, generic_shape };
std::vector<Method> plan(PlanFor what);
// After a default analysis left the bracket open, what one more call runs
// (the claim language asks this): a black-box for networks, the modular rank
// for a polynomial.
std::vector<Method> plan_followup(bool polynomial);

// A method file's static object: adds its descriptor to the registry.
struct RegisterMethod {
  explicit RegisterMethod(const MethodInfo& info);
};

}  // namespace netpoly
