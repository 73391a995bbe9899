// The methods' registry inside the library: each method's descriptor with
// its functions, which take the scheduler's MethodContext (method.hpp), the
// default plan, and the object a method file registers itself with. What a
// linking program sees of it is netpoly/methods.hpp.
#pragma once
#include <limits>
#include <optional>
#include <vector>

#include "netpoly/methods.hpp"

namespace netpoly {

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
  const char* summary = "";     // one line describing it (the registry's; not printed at present)
  bool needs_expansion = false;     // reads the coefficient matrix of the expansion
  bool accepts_polynomial = false;  // runs on a polynomial given directly
  // Takes a model with Gaussian weights (a+bi): a method that reads the
  // expansion runs on its realified polynomial (engines/gauss_sep.hpp, its numbers
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

// The default plan: which methods run, in which order, when none are asked
// for (they stop once the bracket closes). The only place that policy lives.
enum class PlanFor { expandable_network, unexpandable_network, polynomial, generic_shape };
std::vector<Method> plan(PlanFor what);

// A method file's static object: adds its descriptor to the registry.
struct RegisterMethod {
  explicit RegisterMethod(const MethodInfo& info);
};

}  // namespace netpoly
