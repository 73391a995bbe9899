// The claim language's syntax tree and parser (grammar: proofs/README.md).
//
// A file is a list of claims; a claim is a title and clauses evaluated in
// order: `for`/`exists` (quantifiers over generators), `let`/`where`
// (bindings), `assume` (filters), `check` (relations), `using` (options),
// `show` (values printed per instance, for exploring).
// Parsing also checks names, functions, arities, options and bound ids, so
// that every mistake is reported as `file:line:column: expected ...`
// (InputError) before any claim runs.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "claims/quantities/claim_interval.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/flint.hpp"

namespace netpoly {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

// A named or positional argument of a call.
struct Arg {
  std::string name;  // empty: positional
  ExprPtr value;
  SrcLoc loc;
};

// An input variable as written: x5 (flat index 5) or x1_2 (token 1, channel 2).
struct VarRef {
  bool flat = true;
  std::size_t index = 0;               // flat
  std::size_t token = 0, channel = 0;  // x{token}_{channel}
  std::string text;
};

// The partition of a sep(T; PART) call.
struct PartSpec {
  enum class Kind { half, interleaved, vars, tokens, channels, value };
  Kind kind = Kind::half;
  std::vector<std::pair<VarRef, std::optional<VarRef>>> vars;  // vars: items and ranges x0..x2
  std::vector<ExprPtr> items;  // tokens / channels: integer expressions (ranges allowed)
  ExprPtr value;               // value: an expression giving a partition (e.g. a `for P in balanced(net)` name)
  SrcLoc loc;
  std::string text;
};

struct FunctionInfo;

struct Expr {
  enum class Kind { number, string, name, neg, binary, call, index, list, range, comprehension };
  Kind kind = Kind::number;
  SrcLoc loc;
  std::string text;              // the source text, whitespace collapsed (for reports)
  int id = 0;                    // unique within a file
  Fmpq number;                   // number
  std::string str;               // string literal, name, or function name
  char op = 0;                   // binary: + - * / ^
  std::vector<ExprPtr> kids;     // neg/binary operands; index: base then indices; list items; range ends;
                                 // comprehension: the body, then the list NAME runs over (str = NAME)
  std::vector<Arg> args;         // call arguments (named ones include options given after ';')
  std::optional<PartSpec> part;  // call: partition section
  ExprPtr poly;                  // poly("..."): the parsed polynomial text
  const FunctionInfo* fn = nullptr;  // call: its entry in the function table (set by the parser)
  int height = 1;                // 1 + the highest child (bounded by kMaxClaimHeight)
};

// Limits of the parser, so that deep input is an InputError and never a
// stack overflow (in the parser, or in the recursive walks over the tree):
// nesting of parentheses, brackets, calls, unary minus and ^ ...
inline constexpr int kMaxClaimNesting = 200;
// ... and the height of an expression tree (a chain a + b + c ... of n
// operators is n levels high).
inline constexpr int kMaxClaimHeight = 1000;

// `a REL b REL c ...` (a chain, every link must hold) or a bare expression (true when != 0).
struct Condition {
  std::vector<ExprPtr> terms;
  std::vector<Rel> rels;
};

// Which weight assignments a claim's sep(...) of a network speaks of, from a
// `for every weight` / `for almost every weight` clause on (proofs/README.md,
// *Weight quantifiers*); `drawn` (no such clause): the network's own weights.
enum class WeightQuantifier { drawn, every, almost_every };
// "every weight" | "almost every weight" | "" (drawn): as reports and coverage name it.
inline const char* weight_quantifier_text(WeightQuantifier w) {
  return w == WeightQuantifier::every ? "every weight" : w == WeightQuantifier::almost_every ? "almost every weight" : "";
}

struct Clause {
  enum class Kind { for_all, exists, let, assume, check, using_, show, weights };
  Kind kind = Kind::check;
  SrcLoc loc;
  std::string text;            // the clause as written (one line)
  std::string name;            // for / exists / let
  std::vector<ExprPtr> gens;   // for / exists: union of generators
  ExprPtr value;               // let
  Condition cond;              // assume / check
  std::vector<Arg> options;    // using
  std::vector<ExprPtr> shows;  // show: values printed for every instance
  WeightQuantifier weights = WeightQuantifier::drawn;  // weights: every | almost_every
};

// Parses claim text; `path` names it in messages, `base_dir` resolves model paths.
// Throws InputError "path:line:col: expected ..." on the first mistake.
ClaimFile parse_claims(const std::string& text, const std::string& path, const std::string& base_dir);
// Reads and parses a file.
ClaimFile parse_claim_file(const std::string& path);

namespace claims_detail {
class Evaluator;
struct Value;
using Env = std::vector<std::pair<std::string, Value>>;
}  // namespace claims_detail

// The functions of the language: each entry holds its signature (what the
// parser checks), its one-line summary and its behaviour
// (what the evaluator runs), so a signature without behaviour cannot exist.
// The table is src/claims/functions/functions.cpp; the entries live with
// their handlers in that folder.
struct FunctionInfo {
  using Call = claims_detail::Value (*)(claims_detail::Evaluator&, const Expr&, const claims_detail::Env&);
  using Generate = std::vector<claims_detail::Value> (*)(claims_detail::Evaluator&, const Expr&,
                                                         const claims_detail::Env&);
  std::string name;
  int min_pos = 0, max_pos = 0;  // positional arguments (max -1: any number)
  enum class Part { none, required, optional } part = Part::none;
  std::vector<std::string> named;    // accepted named arguments / options
  std::vector<std::string> symbols;  // named arguments whose values are words (methods = exact)
  std::string summary;
  // Exactly one is set: a value, or (generators) the values a `for` runs over.
  Call call = nullptr;
  Generate generate = nullptr;
};
const std::vector<FunctionInfo>& claim_functions();
const FunctionInfo* find_claim_function(const std::string& name);

// Options accepted by `using` and by the option sections of sep-like calls.
const std::vector<std::string>& claim_sep_options();

}  // namespace netpoly
