// The claim language's window on the bounds library (bounds.hpp): `bound`,
// `log3bound` and `regime` look records up by id, and a few one-step lemmas
// (NB Lemma 5.4, NB Lemma 5.2 (iv), LV Lemma 2) are offered as functions of
// named arguments. Kept in one file so that changes to the library's API
// touch only this adapter.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netpoly/bounds.hpp"
#include "claims/quantities/claim_interval.hpp"

namespace netpoly {

// Every id `bound(...)` accepts: the library's record ids and the lemma helpers.
std::vector<std::string> claim_bound_ids();

// Resolves a written id (case-insensitive; a unique prefix is enough) against
// the known ids; empty with the reason in *why when unknown or ambiguous.
std::string resolve_bound_id(const std::string& written, const std::vector<std::string>& among, std::string* why);

// Named arguments of a bound call: numbers (quantities) by name, and the shape
// of a network when one was given.
struct BoundCall {
  std::string id;                            // as written
  std::optional<NetworkShape> shape;          // from a network argument
  std::map<std::string, Quantity> numbers;   // layers = 2, K = k, ...
  std::map<std::string, std::string> words;  // arch = mixer
};

enum class BoundWant { value, log3, regime };

// What a bound call evaluated (for `check --coverage`): the resolved id, and
// whether the value says nothing (a lower bound of at most 1: sep >= 1 holds
// for every nonzero function).
struct BoundUse {
  std::string id;
  bool vacuous = false;
};

// bound(...): the exact value (certified point; the floor when the library
// floors a rational upper bound); log3bound(...): an enclosure of its base-3
// logarithm; regime(...): 1 when the record's condition holds, else 0.
// Throws InputError for unknown ids, missing parameters, or a value that is
// known only as log3.
Quantity claim_bound(const BoundCall& call, BoundWant want, BoundUse* use = nullptr);

}  // namespace netpoly
