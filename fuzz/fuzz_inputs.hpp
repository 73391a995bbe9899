// What the fuzz targets check, shared with the regression test
// (tests/test_reliability.cpp feeds every file of tests/data/fuzz-regressions/
// through the same functions).
//
// Each function takes one input. A netpoly::Error is the parser's documented
// answer to bad input and is swallowed; a broken invariant throws
// fuzz::CheckFailed; anything else (a sanitizer report, another exception, a
// crash) escapes, and the fuzzer or the test reports it.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands/commands.hpp"  // parse_entry
#include "runtime/number_text.hpp"  // parse_list
#include <stdlib.h>

#include <cctype>
#include <cstdio>
#include <sstream>

#include "claims/syntax/claim_parser.hpp"
#include "claims/report/claim_report.hpp"
#include "netpoly/claims.hpp"
#include "netpoly/error.hpp"
#include "netpoly/expand.hpp"
#include "model/forward.hpp"
#include "runtime/limits.hpp"
#include "netpoly/model.hpp"
#include "netpoly/partition.hpp"
#include "netpoly/seprank.hpp"

namespace netpoly::fuzz {

struct CheckFailed : std::logic_error {
  using std::logic_error::logic_error;
};

inline void expect(bool ok, const char* what) {
  if (!ok) throw CheckFailed(what);
}

namespace detail {

// Weights too large make the differential check slow without making it better.
inline bool small_weights(const Model& m) {
  bool ok = true;
  m.map_weights([&](const Fmpq& w) {
    if (fmpz_bits(w.num()) > 256 || fmpz_bits(w.den()) > 256) ok = false;
    return 0;
  });
  return ok;
}

// For small models: the exact expansion at a rational point equals the exact
// forward pass there, and the expansion mod p is the exact one reduced mod p.
inline void differential(const Model& m, std::uint64_t salt) {
  const std::size_t nv = m.num_inputs();
  if (nv > 8) return;
  ExpansionEstimate e = estimate_expansion(m);
  if (e.terms > 2000 || e.degree > 40 || !small_weights(m)) return;
  const std::size_t dout = m.output_width();
  std::vector<Entry> outs{Entry{0, 0}, Entry{m.tokens - 1, dout - 1}};
  PolyRing R(static_cast<slong>(nv));
  auto polys = expand(R, m, outs);

  std::vector<Fmpq> x;  // small entries, different per input
  for (std::size_t k = 0; k < nv; ++k) {
    salt = salt * 6364136223846793005ULL + 1442695040888963407ULL;
    x.emplace_back(static_cast<slong>((salt >> 33) % 7) - 3, static_cast<ulong>(1 + (salt >> 40) % 3));
  }
  RationalRing Q;
  auto y = forward(Q, prepare(Q, m), x);
  std::vector<fmpq*> ptr;
  for (auto& v : x) ptr.push_back(v.get());
  for (std::size_t k = 0; k < outs.size(); ++k) {
    Fmpq v;
    expect(fmpq_mpoly_evaluate_all_fmpq(v.get(), polys[k].get(), ptr.data(), polys[k].c()) != 0,
           "evaluating the expansion failed");
    expect(v == y[outs[k].token * dout + outs[k].channel], "expansion at a point != exact forward pass");
  }

  const ulong p = 1000003;
  ModPolyRing RM(static_cast<slong>(nv), p);
  std::vector<NmodMpoly> mp;
  try {
    mp = expand_mod(RM, m, outs);
  } catch (const DomainError&) {
    return;  // p divides a weight's denominator
  }
  std::vector<ulong> ex(nv);
  for (std::size_t k = 0; k < outs.size(); ++k) {
    NmodMpoly r(RM.ctx);
    for (slong t = 0; t < polys[k].length(); ++t) {
      Fmpq c;
      fmpq_mpoly_get_term_coeff_fmpq(c.get(), polys[k].get(), t, polys[k].c());
      fmpq_mpoly_get_term_exp_ui(ex.data(), polys[k].get(), t, polys[k].c());
      ulong cp;
      try {
        cp = RM.base.scalar(c);
      } catch (const DomainError&) {
        return;  // p divides a coefficient's denominator: the reduction is undefined
      }
      nmod_mpoly_push_term_ui_ui(r.get(), cp, ex.data(), r.c());
    }
    nmod_mpoly_sort_terms(r.get(), r.c());
    nmod_mpoly_combine_like_terms(r.get(), r.c());
    expect(r == mp[k], "expansion mod p != exact expansion reduced mod p");
  }
}

}  // namespace detail

// The model-file reader. A model that parses survives write_model/parse_model
// unchanged, and (when small) its expansion agrees with the forward pass.
inline void model_input(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Model m;
  try {
    m = parse_model(text, "fuzz.json");
  } catch (const Error&) {
    return;
  }
  const std::string w = write_model(m);
  Model again;
  try {
    again = parse_model(w, "round-trip");
  } catch (const Error& e) {
    throw CheckFailed(std::string("write_model output does not read back: ") + e.what());
  }
  expect(again == m, "write_model/parse_model changed the model");
  expect(write_model(again) == w, "write_model is not stable");
  std::uint64_t salt = size;
  for (std::size_t k = 0; k < size && k < 64; ++k) salt = salt * 31 + data[k];
  try {
    detail::differential(m, salt);
  } catch (const DomainError&) {
  }
}

// Option parsers. Byte 0 picks the parser, bytes 1 and 2 the shape (tokens
// and width, 1..32), the rest is the option text:
//   0 parse_partition   1 parse_entry   2 parse_list   3 parse_methods
//   4 parse_memory_size 5 parse_rational (the weight syntax "p/q")
inline void options_input(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return;
  const std::size_t tokens = 1 + data[1] % 32, width = 1 + data[2] % 32;
  const std::string s(reinterpret_cast<const char*>(data) + 3, size - 3);
  try {
    switch (data[0] % 6) {
      case 0: {
        Partition p = parse_partition(s, tokens, width);
        expect(p.in_A.size() == tokens * width, "partition: wrong number of variables");
        const std::size_t a = p.size_A();
        expect(a > 0 && a < p.in_A.size(), "partition: a side is empty");
        // Side A's names, parsed back, give the same split.
        std::string spec = "A=";
        auto names = p.a_names();
        for (std::size_t k = 0; k < names.size(); ++k) spec += (k ? "," : "") + names[k];
        expect(parse_partition(spec, tokens, width).in_A == p.in_A, "partition: A's names do not read back");
        expect(names.size() + p.b_names().size() == (p.by_tokens ? tokens : tokens * width),
               "partition: A and B do not cover the items");
        break;
      }
      case 1: {
        Entry e = cli::parse_entry(s, "--output");
        expect(s == std::to_string(e.token) + "," + std::to_string(e.channel) ||
                   cli::parse_entry(std::to_string(e.token) + "," + std::to_string(e.channel), "--output") == e,
               "entry: does not read back");
        break;
      }
      case 2: {
        auto v = parse_list(s, "--layers");
        expect(!v.empty(), "list: empty");
        for (auto x : v) expect(x <= 999999999u, "list: value beyond 9 digits");
        break;
      }
      case 3: {
        auto v = parse_methods(s);
        expect(!v.empty(), "methods: empty");
        expect(std::set<Method>(v.begin(), v.end()).size() == v.size(), "methods: duplicates");
        break;
      }
      case 4: {
        double b = parse_memory_size(s, "--max-memory");
        expect(b > 0 && std::isfinite(b), "memory size: not a positive finite number");
        break;
      }
      case 5: {
        Fmpq q, r;
        if (!parse_rational(s, q)) break;
        expect(fmpz_sgn(q.den()) > 0, "rational: denominator not positive");
        expect(parse_rational(q.str(), r) && r == q, "rational: printed form does not read back");
        break;
      }
    }
  } catch (const Error&) {
  }
}

// The claim-language parser: parses or throws InputError; reads no file.
inline void claims_input(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    ClaimFile f = parse_claims(text, "fuzz.np", "/nonexistent-netpoly-fuzz");
    for (const auto& c : f.claims) expect(c.loc.line >= 1, "claims: a claim without a source line");
  } catch (const Error&) {
  }
}

// A claim file with a model file beside it: the bytes before the first line
// "%%" are the claim file, the rest is net.json in the same directory (so
// model("net.json") reads it). The claims are loaded (which reads the model)
// and run with small limits; every report must print as text and as JSON.
// Claims whose ranges are wide (any number of three or more digits in the
// claim text) are parsed but not run: their time is the user's, not a hang.
inline void checks_input(const std::uint8_t* data, std::size_t size) {
  const std::string all(reinterpret_cast<const char*>(data), size);
  const auto sep = all.find("\n%%\n");
  const std::string claims = all.substr(0, sep), model = sep == std::string::npos ? "" : all.substr(sep + 4);
  static const std::string dir = [] {
    char t[] = "/tmp/netpoly-fuzz-checks-XXXXXX";
    const char* d = mkdtemp(t);
    return std::string(d ? d : "/tmp");
  }();
  {
    std::FILE* f = std::fopen((dir + "/c.np").c_str(), "wb");
    if (!f) return;
    std::fwrite(claims.data(), 1, claims.size(), f);
    std::fclose(f);
    f = std::fopen((dir + "/net.json").c_str(), "wb");
    if (!f) return;
    std::fwrite(model.data(), 1, model.size(), f);
    std::fclose(f);
  }
  bool wide = false;
  for (std::size_t i = 0; i + 2 < claims.size(); ++i)
    wide = wide || (std::isdigit(static_cast<unsigned char>(claims[i])) &&
                    std::isdigit(static_cast<unsigned char>(claims[i + 1])) &&
                    std::isdigit(static_cast<unsigned char>(claims[i + 2])));
  try {
    const auto files = load_claim_paths({dir + "/c.np"});
    const auto selected = select_claims(files, "");
    if (wide || selected.size() > 4) return;
    CheckOptions o;
    o.budget = 0.5;
    o.max_terms = 2000;
    for (const Claim* c : selected) {
      const ClaimResult r = run_claim(*c, o);
      std::ostringstream os;
      write_claim_text(os, r);
      (void)claim_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
      expect(r.verdict == Verdict::pass || r.verdict == Verdict::pass_probabilistic || r.verdict == Verdict::fail ||
                 r.verdict == Verdict::inconclusive,
             "checks: a verdict out of range");
    }
  } catch (const Error&) {
  }
}

}  // namespace netpoly::fuzz
