// The separation-rank methods: one registry that the scheduler, the CLI's
// help and --methods, the claim language and the documentation read.
//
// Each method lives in one file of src/analysis/methods/ holding its
// MethodInfo and a RegisterMethod object (registry.hpp there); nothing else
// names it (the constants Method::group ... below are conveniences for the
// built-in ones).
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

// The registry as a program linking netpoly sees it: the methods, what their
// values certify and what they read. The descriptors with their functions
// (estimate, applies, run) and the default plan are the library's
// (src/analysis/methods/registry.hpp).
std::vector<Method> registered_methods();  // in listing order
// Each throws InputError for an unregistered id.
RunKind method_kind(Method m);
bool method_needs_expansion(Method m);    // reads the coefficient matrix of the expansion
bool method_accepts_polynomial(Method m);  // runs on a polynomial given directly
const char* method_name(Method m);
// "group,exact" -> methods (duplicates dropped); throws InputError naming the
// unknown word and every registered method.
std::vector<Method> parse_methods(const std::string& list);
// "group, exact, ..." in registry order (with `sep` between).
std::string method_list(const std::string& sep = ", ");
// After a default analysis left the bracket open, what one more call runs
// (the claim language asks this): a black-box for networks, the modular rank
// for a polynomial.
std::vector<Method> plan_followup(bool polynomial);

}  // namespace netpoly
