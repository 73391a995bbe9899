// The claim language: claims and clauses, static checks, and the entry points
// (claim_parser.hpp); tokens in claim_lexer.hpp, expressions in
// claim_expr_parser.hpp.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "claims/syntax/claim_expr_parser.hpp"
#include "claims/syntax/claim_parser.hpp"
#include "claims/eval/claim_bounds.hpp"
#include "netpoly/error.hpp"
#include "runtime/io.hpp"
#include "netpoly/methods.hpp"
#include "netpoly/model.hpp"
#include "runtime/text_escape.hpp"

namespace netpoly {

Claim::Claim() = default;
Claim::Claim(const Claim&) = default;
Claim::Claim(Claim&&) noexcept = default;
Claim& Claim::operator=(const Claim&) = default;
Claim& Claim::operator=(Claim&&) noexcept = default;
Claim::~Claim() = default;

namespace claims_detail {

// Claims and clauses over the expression grammar.
class Parser : public ExprParser {
 public:
  using ExprParser::ExprParser;

  ClaimFile parse_file(const std::string& base_dir) {
    ClaimFile f;
    f.path = file_;
    skip_newlines();
    while (!at_eof()) {
      if (!is_ident("claim")) fail("`claim \"title\"` to start a claim");
      f.claims.push_back(parse_claim(base_dir));
      skip_newlines();
    }
    return f;
  }

 private:
  // ---------------------------------------------------------- claims
  Claim parse_claim(const std::string& base_dir) {
    Claim c;
    c.loc = loc();
    c.base_dir = base_dir;
    ++p_;  // claim
    if (cur().kind != Token::Kind::string) fail("the claim's title in double quotes");
    c.title = t_[p_++].text;
    if (!at_end_of_clause()) fail("the end of the line after the title");
    skip_newlines();
    while (!at_eof() && !is_ident("claim")) {
      c.clauses.push_back(parse_clause());
      if (!at_end_of_clause()) fail("the end of the clause");
      skip_newlines();
    }
    bool has_check = false;
    for (const auto& cl : c.clauses) has_check = has_check || cl.kind == Clause::Kind::check;
    if (!has_check)
      throw InputError(c.loc.str() + ": expected at least one `check` clause in claim \"" + c.title + "\"");
    return c;
  }

  Clause parse_clause() {
    Clause cl;
    cl.loc = loc();
    const std::size_t first = p_;
    if (cur().kind != Token::Kind::ident || !kKeywords.count(cur().text) || cur().text == "claim")
      fail("a clause: for, exists, let, where, assume, check, show or using");
    const std::string kw = t_[p_++].text;
    const bool every = (kw == "for" || kw == "forall") && is_ident("every") && peek().kind == Token::Kind::ident &&
                       peek().text == "weight";
    const bool almost = (kw == "for" || kw == "forall") && is_ident("almost") && peek().kind == Token::Kind::ident &&
                        peek().text == "every" && peek(2).kind == Token::Kind::ident && peek(2).text == "weight";
    if (every || almost) {  // for every weight / for almost every weight
      cl.kind = Clause::Kind::weights;
      cl.weights = every ? WeightQuantifier::every : WeightQuantifier::almost_every;
      p_ += every ? 2 : 3;
      if (!at_end_of_clause())
        fail("the end of the clause after `for " + std::string(every ? "" : "almost ") + "every weight`");
    } else if (kw == "for" || kw == "forall" || kw == "exists") {
      cl.kind = kw == "exists" ? Clause::Kind::exists : Clause::Kind::for_all;
      cl.name = expect_ident("a name to bind (for NAME in ...)");
      if (!is_ident("in")) fail("'in'");
      ++p_;
      cl.gens.push_back(parse_expr());
      while (is_op(",")) {
        ++p_;
        cl.gens.push_back(parse_expr());
      }
    } else if (kw == "let" || kw == "where") {
      cl.kind = Clause::Kind::let;
      cl.name = expect_ident("a name to bind (let NAME = ...)");
      expect_op("=", "'=' (let NAME = EXPR)");
      cl.value = parse_expr();
    } else if (kw == "assume" || kw == "check") {
      cl.kind = kw == "assume" ? Clause::Kind::assume : Clause::Kind::check;
      cl.cond = parse_condition();
    } else if (kw == "show") {
      cl.kind = Clause::Kind::show;
      cl.shows.push_back(parse_expr());
      while (is_op(",")) {
        ++p_;
        cl.shows.push_back(parse_expr());
      }
    } else {  // using
      cl.kind = Clause::Kind::using_;
      cl.options = parse_options({"using"});
    }
    cl.text = text_from(first);
    return cl;
  }
};

// ------------------------------------------------------------------ static checks
class Scope {
 public:
  explicit Scope(const Claim& c) : claim_(c) {}
  void run() {
    for (const auto& cl : claim_.clauses) {
      switch (cl.kind) {
        case Clause::Kind::for_all:
        case Clause::Kind::exists:
          for (const auto& g : cl.gens) expr(*g);
          bind(cl.name, cl.loc);
          break;
        case Clause::Kind::let:
          expr(*cl.value);
          bind(cl.name, cl.loc);
          break;
        case Clause::Kind::assume:
        case Clause::Kind::check:
          for (const auto& t : cl.cond.terms) expr(*t);
          break;
        case Clause::Kind::show:
          for (const auto& t : cl.shows) expr(*t);
          break;
        case Clause::Kind::weights:
          break;
        case Clause::Kind::using_:
          for (const auto& o : cl.options) {
            const auto& allowed = claim_sep_options();
            if (std::find(allowed.begin(), allowed.end(), o.name) == allowed.end())
              throw InputError(o.loc.str() + ": expected one of " + join(allowed) + " after using, got '" + o.name +
                               "'");
            if (o.name == "methods") {
              auto ok = symbol_values("methods");
              for (const auto& w : o.value->kids)
                if (std::find(ok.begin(), ok.end(), w->str) == ok.end())
                  throw InputError(w->loc.str() + ": expected " + join(ok, " or ") + ", got '" + w->str + "'");
            } else {
              expr(*o.value);
            }
          }
          break;
      }
    }
  }

 private:
  void bind(const std::string& name, const SrcLoc& at) {
    // A function's name may name a value too (`let prod = ...`): `prod(...)`
    // is always the call, so scripts keep working when functions are added.
    if (kConstants.count(name) || name == "half" || name == "interleaved" || name == "A")
      throw InputError(at.str() + ": expected a name that is not reserved, got '" + name + "'");
    names_.insert(name);
  }
  void expr(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::name:
        if (!names_.count(e.str) && !kConstants.count(e.str))
          throw InputError(e.loc.str() + ": expected a bound name (from for/exists/let before this clause), got '" +
                           e.str + "'");
        return;
      case Expr::Kind::call: {
        const FunctionInfo* f = e.fn ? e.fn : find_claim_function(e.str);
        for (const auto& a : e.args) {
          if (f && std::find(f->symbols.begin(), f->symbols.end(), a.name) != f->symbols.end()) continue;
          expr(*a.value);
        }
        if (e.part) {
          for (const auto& i : e.part->items) expr(*i);
          if (e.part->value) expr(*e.part->value);
        }
        return;
      }
      case Expr::Kind::comprehension: {
        expr(*e.kids[1]);
        const bool had = names_.count(e.str) > 0;
        bind(e.str, e.loc);
        expr(*e.kids[0]);
        if (!had) names_.erase(e.str);
        return;
      }
      default:
        for (const auto& k : e.kids) expr(*k);
    }
  }
  const Claim& claim_;
  std::set<std::string> names_;
};


// The claim language is UTF-8 text (titles go into JSON reports): the first
// invalid byte is an input error naming its line and column.
void require_utf8(const std::string& text, const std::string& path) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < text.size();) {
    const Utf8Char u = utf8_at(text, i);
    if (!u.valid)
      throw InputError(path + ":" + std::to_string(line) + ":" + std::to_string(col) +
                       ": invalid UTF-8 (claim files are UTF-8 text)");
    if (u.cp == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += u.len;
  }
}

}  // namespace claims_detail

using claims_detail::Lexer;
using claims_detail::Parser;
using claims_detail::Scope;
using claims_detail::require_utf8;

ClaimFile parse_claims(const std::string& text, const std::string& path, const std::string& base_dir) {
  require_utf8(text, path);
  Lexer lx(text, path);
  auto toks = lx.run();
  int next_id = 1;
  Parser p(text, std::move(toks), path, &next_id);
  ClaimFile f = p.parse_file(base_dir);
  for (const auto& c : f.claims) Scope(c).run();
  // Each claim's own text: the lines from its `claim` to the next claim's.
  std::vector<std::size_t> starts = {0};  // byte offset of each line
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  auto offset = [&](int line) { return line >= 1 && std::size_t(line) <= starts.size() ? starts[line - 1] : text.size(); };
  for (std::size_t k = 0; k < f.claims.size(); ++k) {
    const std::size_t b = offset(f.claims[k].loc.line);
    const std::size_t e = k + 1 < f.claims.size() ? offset(f.claims[k + 1].loc.line) : text.size();
    f.claims[k].source = text.substr(b, e > b ? e - b : 0);
  }
  return f;
}

ClaimFile parse_claim_file(const std::string& path) {
  const std::string text = read_text_file(path, "the claim file");
  std::string dir = ".";
  const auto slash = path.find_last_of('/');
  if (slash != std::string::npos) dir = slash == 0 ? "/" : path.substr(0, slash);
  return parse_claims(text, path, dir);
}

}  // namespace netpoly
