// The result of bracketing a separation rank: certified ends [lower, upper],
// the method behind each, and what the pair says (exact, probabilistic,
// bracket). One type for one (output, partition) pair, a sup/inf over pairs
// and a table row; its JSON and its text forms are written here only.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace netpoly {

class JsonCheck;

// The largest rank a file may state (a bracket end read back from JSON).
inline constexpr std::size_t kMaxRank = std::size_t(1) << 62;

struct MethodRun;

enum class BracketStatus {
  exact,          // the ends meet
  probabilistic,  // open, but the lower end is sep with probability >= 1 - failure_probability
  bracket,        // open
  error,          // no measurement (a table row whose configuration failed)
};
const char* status_name(BracketStatus s);  // "exact", "probabilistic", "bracket", "error"
BracketStatus parse_status(const std::string& s);  // throws InputError

struct End {
  std::optional<std::size_t> value;
  std::string method;  // "" when nothing bounds this end
};

struct Bracket {
  End lower, upper;
  BracketStatus status = BracketStatus::bracket;
  double failure_probability = 0;  // probabilistic: sep = lower with probability >= 1 - this

  // The ends of a set of method runs: the largest certified lower end, the
  // smallest certified upper end (exact runs give both, and win ties), the
  // status, and the black-box's probability statement when it carries the
  // lower end. Throws InternalError if the ends cross.
  static Bracket combine(const std::vector<MethodRun>& runs);
  // sup / inf over several brackets (NB §4.2 sup-sep / inf-sep): [max lower,
  // max upper] / [min lower, min upper]; a missing end is 0 / unbounded. Its
  // ends name no method; status exact or bracket.
  static Bracket sup(const std::vector<Bracket>& bs);
  static Bracket inf(const std::vector<Bracket>& bs);

  // JSON: the ends with their methods ({"lower": {"value", "method"}, ...,
  // "status", "failure_probability" when probabilistic}) ...
  void write_ends_json(nlohmann::json& j) const;
  // ... the values only ({"lower": n | null, "upper": n | null, "status"}) ...
  nlohmann::json values_json() const;
  // ... or flat table-row fields (lower, upper, lower_method, upper_method,
  // status, failure_probability), and back.
  void write_row_json(nlohmann::json& j) const;
  // Reading back checks every field strictly (JsonCheck): a negative or
  // non-integer end, an unknown status, a probability outside [0, 1) is an
  // InputError naming `in`'s source and the JSON path under `path`.
  static Bracket from_row_json(const nlohmann::json& j);
  static Bracket from_row_json(const nlohmann::json& j, const JsonCheck& in, const std::string& path);

  // Text: "5", "5?" (probabilistic), "[3,7]" (compact, seprank's column) or
  // "5", "5 (prob.)", "error", "[3, 7]" (tables).
  std::string compact_text() const;
  std::string table_text() const;
  std::string range_text() const;  // "[3, 7]" whatever the status ("[0, inf]" with no ends)
};

}  // namespace netpoly
