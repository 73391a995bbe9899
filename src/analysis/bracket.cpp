#include "netpoly/bracket.hpp"

#include <algorithm>

#include "netpoly/error.hpp"
#include "runtime/json_check.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly {

using json = nlohmann::json;

const char* status_name(BracketStatus s) {
  switch (s) {
    case BracketStatus::exact: return "exact";
    case BracketStatus::probabilistic: return "probabilistic";
    case BracketStatus::bracket: return "bracket";
    case BracketStatus::error: return "error";
  }
  return "?";
}

BracketStatus parse_status(const std::string& s) {
  for (auto st : {BracketStatus::exact, BracketStatus::probabilistic, BracketStatus::bracket, BracketStatus::error})
    if (s == status_name(st)) return st;
  throw InputError("unknown status \"" + s + "\" (expected exact, probabilistic, bracket or error)");
}

Bracket Bracket::combine(const std::vector<MethodRun>& runs) {
  Bracket res;
  const MethodRun* lower_run = nullptr;
  for (const auto& r : runs) {
    if (!r.value) continue;
    // On ties the exact method names the end: it certifies both.
    const bool tie_wins = r.kind == RunKind::exact;
    if (r.kind == RunKind::lower || r.kind == RunKind::exact)
      if (!res.lower.value || *r.value > *res.lower.value || (tie_wins && *r.value == *res.lower.value)) {
        res.lower = {r.value, method_name(r.method)};
        lower_run = &r;
      }
    // A black-box rank equal to the best lower end carries the probability statement.
    if (r.failure_probability && res.lower.value && *r.value == *res.lower.value && lower_run &&
        lower_run->kind != RunKind::exact)
      lower_run = &r;
    if (r.kind == RunKind::upper || r.kind == RunKind::exact)
      if (!res.upper.value || *r.value < *res.upper.value || (tie_wins && *r.value == *res.upper.value))
        res.upper = {r.value, method_name(r.method)};
  }
  if (res.lower.value && res.upper.value && *res.lower.value > *res.upper.value)
    throw InternalError("inconsistency: certified lower bound " + std::to_string(*res.lower.value) + " (" +
                        res.lower.method + ") exceeds certified upper bound " + std::to_string(*res.upper.value) +
                        " (" + res.upper.method + ")");
  if (res.lower.value && res.upper.value && *res.lower.value == *res.upper.value) {
    res.status = BracketStatus::exact;
  } else if (lower_run && lower_run->failure_probability) {
    res.status = BracketStatus::probabilistic;
    res.failure_probability = *lower_run->failure_probability;
  } else {
    res.status = BracketStatus::bracket;
  }
  return res;
}

namespace {

Bracket extreme(const std::vector<Bracket>& bs, bool sup) {
  Bracket b;
  std::optional<std::size_t> lo, hi;
  bool lo_all = true, hi_all = true;
  for (const auto& r : bs) {
    if (r.lower.value) lo = !lo ? *r.lower.value : (sup ? std::max(*lo, *r.lower.value) : std::min(*lo, *r.lower.value));
    else lo_all = false;
    if (r.upper.value) hi = !hi ? *r.upper.value : (sup ? std::max(*hi, *r.upper.value) : std::min(*hi, *r.upper.value));
    else hi_all = false;
  }
  // For sup, a missing lower end (0) does not change the max; a missing upper makes it unbounded.
  if (lo && (sup || lo_all)) b.lower.value = lo;
  if (hi && (hi_all || !sup)) b.upper.value = hi;
  // "exact" when the ends meet (they may while some brackets are open).
  b.status = b.lower.value && b.lower.value == b.upper.value ? BracketStatus::exact : BracketStatus::bracket;
  return b;
}

json value_or_null(const std::optional<std::size_t>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

Bracket Bracket::sup(const std::vector<Bracket>& bs) { return extreme(bs, true); }
Bracket Bracket::inf(const std::vector<Bracket>& bs) { return extreme(bs, false); }

void Bracket::write_ends_json(json& j) const {
  auto end = [](const End& e) {
    return json{{"value", value_or_null(e.value)}, {"method", e.method.empty() ? json(nullptr) : json(e.method)}};
  };
  j["lower"] = end(lower);
  j["upper"] = end(upper);
  j["status"] = status_name(status);
  if (status == BracketStatus::probabilistic) j["failure_probability"] = failure_probability;
}

json Bracket::values_json() const {
  return json{{"lower", value_or_null(lower.value)}, {"upper", value_or_null(upper.value)}, {"status", status_name(status)}};
}

void Bracket::write_row_json(json& j) const {
  j["lower"] = value_or_null(lower.value);
  j["upper"] = value_or_null(upper.value);
  j["lower_method"] = lower.method;
  j["upper_method"] = upper.method;
  j["status"] = status_name(status);
  if (status == BracketStatus::probabilistic) j["failure_probability"] = failure_probability;
}

Bracket Bracket::from_row_json(const json& j) { return from_row_json(j, JsonCheck("a table row"), ""); }

Bracket Bracket::from_row_json(const json& j, const JsonCheck& in, const std::string& path) {
  Bracket b;
  auto end = [&](const char* k, std::optional<std::size_t>& to) {
    const json& v = in.at(j, path, k);
    if (!v.is_null()) to = in.count(v, JsonCheck::join(path, k), 0, kMaxRank);
  };
  end("lower", b.lower.value);
  end("upper", b.upper.value);
  auto method = [&](const char* k) {
    return j.contains(k) ? in.text(j[k], JsonCheck::join(path, k)) : std::string();
  };
  b.lower.method = method("lower_method");
  b.upper.method = method("upper_method");
  const std::string st = in.text(in.at(j, path, "status"), JsonCheck::join(path, "status"));
  b.status = in.parsed(JsonCheck::join(path, "status"), [&] { return parse_status(st); });
  if (j.contains("failure_probability"))
    b.failure_probability = in.number(j["failure_probability"], JsonCheck::join(path, "failure_probability"), 0, 1);
  return b;
}

std::string Bracket::compact_text() const {
  if (status == BracketStatus::exact) return std::to_string(*lower.value);
  if (status == BracketStatus::probabilistic) return std::to_string(*lower.value) + "?";
  return "[" + (lower.value ? std::to_string(*lower.value) : std::string("0")) + "," +
         (upper.value ? std::to_string(*upper.value) : std::string("inf")) + "]";
}

std::string Bracket::table_text() const {
  if (status == BracketStatus::exact) return std::to_string(*lower.value);
  if (status == BracketStatus::probabilistic) return std::to_string(*lower.value) + " (prob.)";
  if (status == BracketStatus::error) return "error";
  return range_text();
}

std::string Bracket::range_text() const {
  return "[" + (lower.value ? std::to_string(*lower.value) : std::string("0")) + ", " +
         (upper.value ? std::to_string(*upper.value) : std::string("inf")) + "]";
}

}  // namespace netpoly
