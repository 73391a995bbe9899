// The expansion's inside (internal): how expand() packs variables into
// exponent fields, the packed expansion the coefficient matrix reads as it
// is, and the watch an analysis runs an expansion under (its memory
// fraction, stop and estimate). Public: netpoly/expand.hpp.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "netpoly/context.hpp"
#include "netpoly/expand.hpp"

namespace netpoly {

// How expand() packs variables in a lexicographic ring: `group` consecutive
// variables share one exponent field as base-`base` digits (base = degree
// bound + 1), in `fields` fields of `words` words per exponent; group 1 = no
// packing (words is then the unpacked layout). Chosen where it saves words.
struct Packing {
  slong group = 1;
  ulong base = 0;
  slong fields = 0;
  slong words = 0;
  ulong span = 0;  // base^group: the values of one field
};
Packing choose_packing(slong nvars, ulong degree);

// One expanded output as the forward pass leaves it: when packing.group >= 2,
// `poly` lies in the packed ring (its own context: packing.fields variables,
// variable v of the model being digit v % group of field v / group, the
// field's first variable the most significant digit), else in R itself.
// Readers that only need the exponents (the coefficient matrix) take it as it
// is; unpack() turns it into a polynomial of R.
struct PackedExpansion {
  FmpqMpoly poly;
  Packing packing;   // group < 2: not packed
  slong nvars = 0;   // the model's variables
  ulong degree = 0;  // no variable's exponent exceeds this (packed: base - 1)
};
std::vector<PackedExpansion> expand_packed(const PolyRing& R, const Model& m, const std::vector<Entry>& outputs);
FmpqMpoly unpack(const PolyRing& R, PackedExpansion&& e);

// The fraction of the memory limit at which a watched expansion stops itself
// (LimitError), before the watchdog's hard stop at the limit: the caller
// drops the expansion's polynomials and can go on without it.
inline constexpr double kExpansionMemoryFraction = 0.85;

// A watch for an expansion run under `run` (set it as the PolyRing's watch):
// it gives `run.progress` a first line at once (what is expanded, against
// `estimated_seconds`); between two products it throws Interrupted when
// `run` is cancelled, LimitError when the resident set passes
// kExpansionMemoryFraction of the memory limit or (`stop_after` > 0) when
// the expansion has run longer than `stop_after` seconds, and every half
// second it gives a line: seconds so far against the estimate, the resident set.
std::shared_ptr<const ProductWatch> expansion_watch(const AnalysisContext& run, const std::string& what,
                                                    double estimated_seconds, double stop_after = 0);

// How long a default run lets an expansion go on past its (rough) estimate
// before it gives up on it and goes on with the methods that need none: a
// default run never asked for the expansion, and one far beyond its estimate
// would leave the terminal at "still running" for as long as it takes.
inline double default_expansion_stop(double estimated_seconds) { return std::max(120.0, 5 * estimated_seconds); }

// Seconds an expansion of `terms` estimated terms takes, roughly (the
// scheduler's budget test and the progress lines' estimate).
inline double expansion_seconds_estimate(double terms) { return terms * 2e-6; }

// What each packed field value stands for, as a table for reading packed
// exponents: `width` words for each field j and value f < span, at row
// j * span + f. fill(row, e, v0, c) fills the row of one value: its digits
// are e[v0 .. v0 + c) (the exponents of field j's variables v0..v0+c-1, the
// first the most significant digit; e is zero elsewhere). Rows beyond a
// shorter last field's values stay zero.
std::vector<ulong> packed_value_table(
    const Packing& pk, slong nvars, std::size_t width,
    const std::function<void(ulong* row, const std::vector<ulong>& e, slong v0, slong c)>& fill);
// The table row of value f of field j; an internal error beyond the table
// (a wrong degree bound), so that no reader goes outside it.
[[noreturn]] void packed_field_overflow(const Packing& pk, ulong f);
inline std::size_t packed_row(const Packing& pk, slong j, ulong f) {
  if (f >= pk.span) packed_field_overflow(pk, f);
  return static_cast<std::size_t>(j) * pk.span + f;
}

}  // namespace netpoly
