// A polynomial written as text: numbers, variable names, + - * ^ and
// parentheses, / by a nonzero whole number. Data, never code.
#pragma once
#include <string>
#include <vector>

#include "netpoly/flint.hpp"

namespace netpoly {

// The largest exponent and total degree netpoly takes from text (and from
// Python's exponent tuples): below 2^62, so that a term's exponents, and
// their sum, fit the machine words FLINT's term readers return (an exponent
// of 2^64 or more aborts FLINT when the term is read back).
inline constexpr unsigned long long kMaxPolyExponent = (1ULL << 62) - 1;

// The polynomial in `names` (in that order) that `text` writes, read by
// FLINT's parser after netpoly's own check of the text: its syntax, each
// exponent (at most kMaxPolyExponent), and estimates of the total degree,
// the number of terms (at most max_terms) and the coefficients' size, so
// FLINT never sees what it cannot represent or what it would expand without
// bound. InputError for text that is not such a polynomial or goes beyond the
// exponents; LimitError for an expansion beyond max_terms or the coefficient
// size. Errors name the character where the text goes wrong.
FmpqMpoly parse_poly_text(const std::string& text, const std::vector<std::string>& names, double max_terms);

}  // namespace netpoly
