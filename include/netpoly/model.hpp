// Models: networks with exact rational weights, read from and written to the
// `netpoly-model/1` JSON format (docs/model-format.md).
#pragma once
#include <string>

#include "netpoly/flint.hpp"
#include "netpoly/network.hpp"

namespace netpoly {

using Model = Network<Fmpq>;

// Reads a model file ("-" = standard input). Throws InputError naming the
// file, the JSON path and what was expected; nothing is returned half-built.
Model read_model(const std::string& path);

// Parses model JSON text; `source` names it in error messages.
Model parse_model(const std::string& text, const std::string& source);

// Checks every shape rule of the format; throws InputError naming `source`
// and the JSON path. The reader calls it; presets and tools that build models
// in memory call it too.
void validate_model(const Model& m, const std::string& source);

// The canonical form of a model (docs/model-format.md, "Canonical form"):
// the same function, with every part that an attention, mixing, product or
// residual layer expresses written as that layer (affine maps composed and
// folded into the matrices that read or write them, sums of heads and of
// MLPs merged, `x + f(x)` a residual flag, zero biases dropped). The analyses
// of one network read it (a traced model is analysed as its preset would
// be); the generic sep of a shape does not (a composition of narrower maps
// is a smaller family than the one map it equals). Gaussian models are
// returned unchanged.
Model canonical_form(const Model& m);

// Serialises a model (matrix rows on one line; big integers as strings).
std::string write_model(const Model& m);

// Parses a weight: integer text or "p/q" with q > 0; false if malformed.
bool parse_rational(const std::string& s, Fmpq& out);

}  // namespace netpoly
