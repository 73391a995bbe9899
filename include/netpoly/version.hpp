// Which netpoly this is: the version, the git commit it was built from and
// the FLINT it links, e.g. "0.1.0 (git 4bf024c05d10, FLINT 2.9.0)". `netpoly
// --version` prints it, and every table row records it (a --merge or --resume
// refuses rows of different builds).
#pragma once
#include <string>

namespace netpoly {

const std::string& netpoly_build();

// Whether s has the form of a netpoly_build() string (version, optional git
// commit, FLINT version; printable ASCII only): what a table row may record.
bool is_build_string(const std::string& s);

// The BibTeX entry to cite this build (`netpoly --cite`, Python's
// netpoly.cite()): CITATION.cff's title, authors, year, version and licence
// (a test keeps the two equal), and netpoly_build() in its note.
std::string citation_bibtex();

}  // namespace netpoly
