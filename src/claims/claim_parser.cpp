// Lexer, parser and static checks of the claim language (claim_parser.hpp).
#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "netpoly/claim_parser.hpp"
#include "netpoly/claim_bounds.hpp"
#include "netpoly/error.hpp"
#include "netpoly/io.hpp"
#include "netpoly/methods.hpp"
#include "netpoly/model.hpp"

namespace netpoly {

namespace {

const std::set<std::string> kKeywords = {"claim", "for",    "forall", "exists", "let",
                                         "where", "assume", "check",  "using",  "show"};
const std::set<std::string> kConstants = {"true", "false"};

std::vector<std::string> symbol_values(const std::string& option) {
  if (option == "activation") return {"none", "square"};
  if (option == "vec") return {"row", "column"};
  if (option == "blocks") return {"kron", "diagonal"};
  if (option == "at") return {"output", "input"};
  if (option == "methods") {
    std::vector<std::string> ids;
    for (const MethodInfo* m : method_registry()) ids.emplace_back(m->id.id());
    return ids;
  }
  if (option == "arch") return {"attention", "mixer", "mlp", "product"};
  return {};
}

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// ------------------------------------------------------------------ lexer
struct Token {
  enum class Kind { ident, number, string, op, newline, eof };
  Kind kind = Kind::eof;
  std::string text;  // identifier, operator, decoded string, number text
  int line = 0, col = 0;
  std::size_t begin = 0, end = 0;  // byte offsets in the source
};

class Lexer {
 public:
  Lexer(const std::string& src, std::string file, int line0 = 1, int col0 = 1, bool newlines = true)
      : s_(src), file_(std::move(file)), line_(line0), col_(col0), newlines_(newlines) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    int depth = 0;
    while (true) {
      skip_space_and_comments();
      if (i_ >= s_.size()) break;
      const char c = s_[i_];
      if (c == '\n') {
        if (depth == 0 && newlines_ && !out.empty() && out.back().kind != Token::Kind::newline)
          out.push_back(make(Token::Kind::newline, "end of line", i_, i_ + 1));
        advance();
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t b = i_;
        int l = line_, co = col_;
        while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) advance();
        out.push_back(tok(Token::Kind::ident, s_.substr(b, i_ - b), l, co, b));
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c))) {
        std::size_t b = i_;
        int l = line_, co = col_;
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) advance();
        // a decimal point, but not the `..` of a range
        if (i_ + 1 < s_.size() && s_[i_] == '.' && std::isdigit(static_cast<unsigned char>(s_[i_ + 1]))) {
          advance();
          while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) advance();
        }
        if (i_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
          throw InputError(SrcLoc{file_, line_, col_}.str() + ": expected an operator after the number " +
                           s_.substr(b, i_ - b) + " (write 2*x, not 2x)");
        out.push_back(tok(Token::Kind::number, s_.substr(b, i_ - b), l, co, b));
        continue;
      }
      if (c == '"') {
        std::size_t b = i_;
        int l = line_, co = col_;
        advance();
        std::string v;
        while (true) {
          if (i_ >= s_.size() || s_[i_] == '\n')
            throw InputError(SrcLoc{file_, l, co}.str() + ": expected a closing \" for this string");
          if (s_[i_] == '"') break;
          if (s_[i_] == '\\' && i_ + 1 < s_.size() && (s_[i_ + 1] == '"' || s_[i_ + 1] == '\\')) advance();
          v += s_[i_];
          advance();
        }
        advance();
        Token t = tok(Token::Kind::string, v, l, co, b);
        out.push_back(t);
        continue;
      }
      static const char* ops2[] = {"..", "==", "!=", "<=", ">="};
      bool two = false;
      for (const char* o : ops2)
        if (s_.compare(i_, 2, o) == 0) {
          out.push_back(tok(Token::Kind::op, o, line_, col_, i_));
          advance();
          advance();
          out.back().end = i_;
          two = true;
          break;
        }
      if (two) continue;
      if (std::string("+-*/^()[],;=<>").find(c) != std::string::npos) {
        if (c == '(' || c == '[') ++depth;
        if ((c == ')' || c == ']') && depth > 0) --depth;
        out.push_back(tok(Token::Kind::op, std::string(1, c), line_, col_, i_));
        advance();
        out.back().end = i_;
        continue;
      }
      throw InputError(SrcLoc{file_, line_, col_}.str() + ": expected a name, number, string or operator, got '" +
                       std::string(1, c) + "'");
    }
    if (newlines_ && !out.empty() && out.back().kind != Token::Kind::newline)
      out.push_back(make(Token::Kind::newline, "end of line", s_.size(), s_.size()));
    Token e = make(Token::Kind::eof, "end of file", s_.size(), s_.size());
    out.push_back(e);
    if (!newlines_) return out;
    // A line that does not start with a clause keyword continues the previous one.
    std::vector<Token> joined;
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (out[k].kind == Token::Kind::newline && k + 1 < out.size()) {
        const Token& n = out[k + 1];
        const bool starts_clause =
            n.kind == Token::Kind::eof || (n.kind == Token::Kind::ident && kKeywords.count(n.text));
        if (!starts_clause) continue;
      }
      joined.push_back(out[k]);
    }
    return joined;
  }

 private:
  void advance() {
    if (s_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }
  void skip_space_and_comments() {
    while (i_ < s_.size()) {
      if (s_[i_] == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') advance();
      } else if (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r') {
        advance();
      } else {
        break;
      }
    }
  }
  Token tok(Token::Kind k, std::string text, int l, int c, std::size_t b) {
    Token t;
    t.kind = k;
    t.text = std::move(text);
    t.line = l;
    t.col = c;
    t.begin = b;
    t.end = i_;
    return t;
  }
  Token make(Token::Kind k, std::string text, std::size_t b, std::size_t e) {
    Token t;
    t.kind = k;
    t.text = std::move(text);
    t.line = line_;
    t.col = col_;
    t.begin = b;
    t.end = e;
    return t;
  }

  const std::string& s_;
  std::string file_;
  std::size_t i_ = 0;
  int line_, col_;
  bool newlines_;
};

std::string collapse(const std::string& s) {
  std::string r;
  bool space = false;
  for (char c : s) {
    if (c == '\n' || c == '\t' || c == '\r' || c == ' ') {
      space = true;
      continue;
    }
    if (space && !r.empty()) r += ' ';
    space = false;
    r += c;
  }
  return r;
}

bool parse_var(const std::string& s, VarRef& v) {
  if (s.size() < 2 || s[0] != 'x') return false;
  auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 9 &&
           std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  const auto us = s.find('_');
  v.text = s;
  if (us == std::string::npos) {
    if (!digits(s.substr(1))) return false;
    v.flat = true;
    v.index = std::stoul(s.substr(1));
    return true;
  }
  if (!digits(s.substr(1, us - 1)) || !digits(s.substr(us + 1))) return false;
  v.flat = false;
  v.token = std::stoul(s.substr(1, us - 1));
  v.channel = std::stoul(s.substr(us + 1));
  return true;
}

// ------------------------------------------------------------------ parser
class Parser {
 public:
  Parser(const std::string& src, std::vector<Token> toks, std::string file, int* next_id)
      : src_(src), t_(std::move(toks)), file_(std::move(file)), next_id_(next_id) {}

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

  // A polynomial literal's text: an expression over variables and numbers.
  ExprPtr parse_poly_text() {
    ExprPtr e = parse_additive();
    if (!at_eof()) fail("an operator or the end of the polynomial");
    return e;
  }

 private:
  // ---------------------------------------------------------- token helpers
  const Token& cur() const { return t_[p_]; }
  const Token& peek(std::size_t k = 1) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  bool at_eof() const { return cur().kind == Token::Kind::eof; }
  bool is_op(const char* o) const { return cur().kind == Token::Kind::op && cur().text == o; }
  bool is_ident(const char* s) const { return cur().kind == Token::Kind::ident && cur().text == s; }
  bool at_end_of_clause() const { return cur().kind == Token::Kind::newline || at_eof(); }
  SrcLoc loc() const { return SrcLoc{file_, cur().line, cur().col}; }
  void skip_newlines() {
    while (cur().kind == Token::Kind::newline) ++p_;
  }
  [[noreturn]] void fail(const std::string& expected) const { fail_at(cur(), expected); }
  [[noreturn]] void fail_at(const Token& t, const std::string& expected) const {
    std::string got = t.kind == Token::Kind::string                                  ? "\"" + t.text + "\""
                      : t.kind == Token::Kind::newline || t.kind == Token::Kind::eof ? t.text
                                                                                     : "'" + t.text + "'";
    throw InputError(SrcLoc{file_, t.line, t.col}.str() + ": expected " + expected + ", got " + got);
  }
  void expect_op(const char* o, const std::string& what = "") {
    if (!is_op(o)) fail(what.empty() ? std::string("'") + o + "'" : what);
    ++p_;
  }
  std::string expect_ident(const std::string& what) {
    if (cur().kind != Token::Kind::ident || kKeywords.count(cur().text)) fail(what);
    return t_[p_++].text;
  }
  std::string text_from(std::size_t first_tok) const {
    if (p_ == 0 || first_tok >= p_) return "";
    return collapse(src_.substr(t_[first_tok].begin, t_[p_ - 1].end - t_[first_tok].begin));
  }
  // Recursive descent uses one stack frame chain per level of nesting, and the
  // syntax tree is walked recursively afterwards: every level is counted
  // (parentheses, lists, indices, call arguments, unary minus, the right side
  // of ^), and so is the height of the tree (a chain a + b + c + ... is a
  // left-deep tree as high as it is long).
  struct Nest {
    Parser& p;
    explicit Nest(Parser& q) : p(q) {
      if (++p.depth_ > kMaxClaimNesting) {
        --p.depth_;
        throw InputError(p.loc().str() + ": expression nested deeper than " + std::to_string(kMaxClaimNesting) +
                         " levels");
      }
    }
    ~Nest() { --p.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  };
  // The height of a finished node: one more than its highest child.
  ExprPtr sealed(std::shared_ptr<Expr> e) {
    int h = 0;
    for (const auto& k : e->kids) h = std::max(h, k->height);
    for (const auto& a : e->args) h = std::max(h, a.value->height);
    if (e->part) {
      for (const auto& i : e->part->items) h = std::max(h, i->height);
      if (e->part->value) h = std::max(h, e->part->value->height);
    }
    if (e->poly) h = std::max(h, e->poly->height);
    e->height = h + 1;
    if (e->height > kMaxClaimHeight)
      throw InputError(e->loc.str() + ": expression nested deeper than " + std::to_string(kMaxClaimHeight) +
                       " levels (a chain of more than " + std::to_string(kMaxClaimHeight) +
                       " operators counts one level per operator)");
    return e;
  }
  std::shared_ptr<Expr> node(Expr::Kind k, const Token& at) {
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->loc = SrcLoc{file_, at.line, at.col};
    e->id = (*next_id_)++;
    return e;
  }

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
    if (kw == "for" || kw == "forall" || kw == "exists") {
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

  Condition parse_condition() {
    Condition c;
    c.terms.push_back(parse_expr());
    while (cur().kind == Token::Kind::op) {
      const std::string& o = cur().text;
      Rel r;
      if (o == "<=")
        r = Rel::le;
      else if (o == "<")
        r = Rel::lt;
      else if (o == "==")
        r = Rel::eq;
      else if (o == ">=")
        r = Rel::ge;
      else if (o == ">")
        r = Rel::gt;
      else if (o == "!=")
        r = Rel::ne;
      else if (o == "=")
        fail("a relation (== for equality)");
      else
        break;
      ++p_;
      c.rels.push_back(r);
      c.terms.push_back(parse_expr());
    }
    return c;
  }

  // name = value {, name = value}; `methods` takes a list of words.
  std::vector<Arg> parse_options(const std::vector<std::string>& context) {
    std::vector<Arg> out;
    while (true) {
      Arg a;
      a.loc = loc();
      a.name = expect_ident("an option name (" + context[0] + " NAME = VALUE)");
      expect_op("=", "'=' after the option name " + a.name);
      a.value = parse_option_value(a.name);
      out.push_back(std::move(a));
      if (!is_op(",")) break;
      ++p_;
    }
    return out;
  }

  ExprPtr parse_option_value(const std::string& name) {
    if (name != "methods") return parse_expr();
    // methods = exact, grid   (a list of words, ended by ';', ')', a newline or `name =`)
    const Token& at = cur();
    auto list = node(Expr::Kind::list, at);
    const std::size_t first = p_;
    while (true) {
      const Token& w = cur();
      auto n = node(Expr::Kind::name, w);
      n->str = expect_ident("a method name (" + method_list() + ")");
      n->text = n->str;
      list->kids.push_back(n);
      if (!(is_op(",") && peek().kind == Token::Kind::ident &&
            !(peek(2).kind == Token::Kind::op && peek(2).text == "=")))
        break;
      ++p_;
    }
    list->text = text_from(first);
    return sealed(list);
  }

  // ---------------------------------------------------------- expressions
  ExprPtr parse_expr() {
    const std::size_t first = p_;
    const Token& at = cur();
    ExprPtr a = parse_additive();
    if (is_op("..")) {
      ++p_;
      auto r = node(Expr::Kind::range, at);
      r->kids = {a, parse_additive()};
      r->text = text_from(first);
      return sealed(r);
    }
    return a;
  }

  ExprPtr parse_additive() {
    const std::size_t first = p_;
    const Token& at = cur();
    ExprPtr a = parse_mult();
    while (is_op("+") || is_op("-")) {
      auto b = node(Expr::Kind::binary, at);
      b->op = t_[p_++].text[0];
      b->kids = {a, parse_mult()};
      b->text = text_from(first);
      a = sealed(b);
    }
    return a;
  }

  ExprPtr parse_mult() {
    const std::size_t first = p_;
    const Token& at = cur();
    ExprPtr a = parse_unary();
    while (is_op("*") || is_op("/")) {
      auto b = node(Expr::Kind::binary, at);
      b->op = t_[p_++].text[0];
      b->kids = {a, parse_unary()};
      b->text = text_from(first);
      a = sealed(b);
    }
    return a;
  }

  ExprPtr parse_unary() {
    if (is_op("-")) {
      Nest guard(*this);
      const std::size_t first = p_;
      auto n = node(Expr::Kind::neg, cur());
      ++p_;
      n->kids = {parse_unary()};
      n->text = text_from(first);
      return sealed(n);
    }
    return parse_power();
  }

  ExprPtr parse_power() {
    const std::size_t first = p_;
    const Token& at = cur();
    ExprPtr a = parse_postfix();
    if (is_op("^")) {
      Nest guard(*this);
      ++p_;
      auto b = node(Expr::Kind::binary, at);
      b->op = '^';
      b->kids = {a, parse_unary()};
      b->text = text_from(first);
      return sealed(b);
    }
    return a;
  }

  ExprPtr parse_postfix() {
    const std::size_t first = p_;
    const Token& at = cur();
    ExprPtr a = parse_primary();
    while (is_op("[")) {
      Nest guard(*this);
      ++p_;
      auto ix = node(Expr::Kind::index, at);
      ix->kids.push_back(a);
      ix->kids.push_back(parse_expr());
      if (is_op(",")) {
        ++p_;
        ix->kids.push_back(parse_expr());
      }
      expect_op("]", "']' (net[i, c], net[t] or list[i])");
      ix->text = text_from(first);
      a = sealed(ix);
    }
    return a;
  }

  ExprPtr parse_primary() {
    const std::size_t first = p_;
    const Token& at = cur();
    if (at.kind == Token::Kind::number) {
      auto n = node(Expr::Kind::number, at);
      std::string s = at.text;
      const auto dot = s.find('.');
      Fmpz num;
      if (dot == std::string::npos) {
        num.set_str(s);
        n->number = Fmpq(num);
      } else {
        std::string digits = s.substr(0, dot) + s.substr(dot + 1);
        num.set_str(digits);
        Fmpz den(1);
        fmpz_set_ui(den.get(), 10);
        fmpz_pow_ui(den.get(), den.get(), s.size() - dot - 1);
        fmpq_set_fmpz_frac(n->number.get(), num.get(), den.get());
      }
      ++p_;
      n->text = text_from(first);
      return n;
    }
    if (at.kind == Token::Kind::string) {
      auto n = node(Expr::Kind::string, at);
      n->str = at.text;
      ++p_;
      n->text = text_from(first);
      return n;
    }
    if (is_op("(")) {
      Nest guard(*this);
      ++p_;
      ExprPtr e = parse_expr();
      expect_op(")", "')'");
      return e;
    }
    if (is_op("[")) {
      Nest guard(*this);
      auto l = node(Expr::Kind::list, at);
      ++p_;
      if (!is_op("]")) {
        l->kids.push_back(parse_expr());
        while (is_op(",")) {
          ++p_;
          l->kids.push_back(parse_expr());
        }
      }
      expect_op("]", "',' or ']' in the list");
      l->text = text_from(first);
      return sealed(l);
    }
    if (at.kind == Token::Kind::ident && !kKeywords.count(at.text)) {
      ++p_;
      if (is_op("(")) return parse_call(at, first);
      auto n = node(Expr::Kind::name, at);
      n->str = at.text;
      n->text = at.text;
      return n;
    }
    fail("a number, a name, a function call, a string, '(' or '['");
  }

  ExprPtr parse_call(const Token& name_tok, std::size_t first) {
    auto c = node(Expr::Kind::call, name_tok);
    c->str = name_tok.text;
    const FunctionInfo* f = find_claim_function(c->str);
    if (!f) {
      std::vector<std::string> names;
      for (const auto& g : claim_functions()) names.push_back(g.name);
      fail_at(name_tok, "a known function (" + join(names) + ")");
    }
    Nest guard(*this);
    ++p_;  // (
    // first section: positional and named arguments
    if (!is_op(")") && !is_op(";")) {
      while (true) {
        Arg a;
        a.loc = loc();
        if (cur().kind == Token::Kind::ident && peek().kind == Token::Kind::op && peek().text == "=") {
          a.name = t_[p_].text;
          p_ += 2;
          a.value = parse_option_value(a.name);
        } else {
          a.value = parse_expr();
        }
        c->args.push_back(std::move(a));
        if (!is_op(",")) break;
        ++p_;
      }
    }
    // further sections: the partition (for sep-like functions), then options
    bool part_done = f->part == FunctionInfo::Part::none;
    while (is_op(";")) {
      ++p_;
      if (!part_done) {
        c->part = parse_partition();
        part_done = true;
        continue;
      }
      for (auto& a : parse_options({c->str + "(...;"})) c->args.push_back(std::move(a));
    }
    expect_op(")", f->part == FunctionInfo::Part::none ? "',' or ')'" : "';' or ')'");
    c->text = text_from(first);
    check_call(*c, *f, name_tok);
    if (c->str == "poly") c->poly = parse_poly_literal(*c);
    return sealed(c);
  }

  PartSpec parse_partition() {
    PartSpec ps;
    ps.loc = loc();
    const std::size_t first = p_;
    if ((is_ident("half") || is_ident("interleaved")) &&
        (peek().kind == Token::Kind::op && (peek().text == ";" || peek().text == ")"))) {
      ps.kind = is_ident("half") ? PartSpec::Kind::half : PartSpec::Kind::interleaved;
      ++p_;
    } else if (is_ident("A") && peek().kind == Token::Kind::op && peek().text == "=") {
      p_ += 2;
      if (is_ident("tokens") || is_ident("channels")) {
        ps.kind = is_ident("tokens") ? PartSpec::Kind::tokens : PartSpec::Kind::channels;
        ++p_;
        ps.items.push_back(parse_expr());
        while (is_op(",")) {
          ++p_;
          ps.items.push_back(parse_expr());
        }
      } else {
        ps.kind = PartSpec::Kind::vars;
        while (true) {
          VarRef a;
          if (cur().kind != Token::Kind::ident || !parse_var(cur().text, a))
            fail("a variable (x5 or x1_0), or `tokens 0, 1`, or `channels 0, 1` after A =");
          ++p_;
          std::optional<VarRef> b;
          if (is_op("..")) {
            ++p_;
            VarRef v;
            if (cur().kind != Token::Kind::ident || !parse_var(cur().text, v) || v.flat != a.flat)
              fail(std::string("the variable ending the range (like ") + (a.flat ? "x5" : "x1_3") + ")");
            ++p_;
            b = v;
          }
          ps.vars.emplace_back(a, b);
          if (!is_op(",")) break;
          ++p_;
        }
      }
    } else {
      ps.kind = PartSpec::Kind::value;
      if (cur().kind == Token::Kind::op && (cur().text == ")" || cur().text == ";"))
        fail("a partition: half, interleaved, A = x0..x2, A = x0_1, x1_0, A = tokens 0, 1, or a partition name");
      ps.value = parse_expr();
    }
    ps.text = text_from(first);
    return ps;
  }

  // Checks positional counts and named arguments against the function table.
  void check_call(const Expr& c, const FunctionInfo& f, const Token& at) {
    int pos = 0;
    std::set<std::string> seen;
    for (const auto& a : c.args) {
      if (a.name.empty()) {
        ++pos;
        continue;
      }
      if (std::find(f.named.begin(), f.named.end(), a.name) == f.named.end()) {
        throw InputError(a.loc.str() + ": expected " +
                         (f.named.empty() ? std::string("no named arguments for ") + f.name
                                          : "one of " + join(f.named) + " for " + f.name) +
                         ", got '" + a.name + "'");
      }
      if (!seen.insert(a.name).second) throw InputError(a.loc.str() + ": expected '" + a.name + "' only once");
      if (std::find(f.symbols.begin(), f.symbols.end(), a.name) != f.symbols.end()) {
        auto allowed = symbol_values(a.name);
        std::vector<ExprPtr> words;
        if (a.value->kind == Expr::Kind::list)
          words = a.value->kids;
        else
          words = {a.value};
        for (const auto& w : words)
          if (w->kind != Expr::Kind::name || std::find(allowed.begin(), allowed.end(), w->str) == allowed.end())
            throw InputError(w->loc.str() + ": expected " + join(allowed, " or ") + " for " + a.name + ", got '" +
                             w->text + "'");
      }
    }
    const bool max_ok = f.max_pos < 0 || pos <= f.max_pos;
    if (pos < f.min_pos || !max_ok) {
      std::string want = f.min_pos == f.max_pos ? std::to_string(f.min_pos)
                         : f.max_pos < 0        ? "at least " + std::to_string(f.min_pos)
                                                : std::to_string(f.min_pos) + " to " + std::to_string(f.max_pos);
      throw InputError(SrcLoc{file_, at.line, at.col}.str() + ": expected " + want + " positional argument" +
                       (want == "1" ? "" : "s") + " for " + f.name + ", got " + std::to_string(pos));
    }
    if (f.part == FunctionInfo::Part::required && !c.part)
      throw InputError(SrcLoc{file_, at.line, at.col}.str() + ": expected a partition after ';' (" + f.name +
                       "(T; half), " + f.name + "(T; A = x0..x2), " + f.name + "(T; A = tokens 0, 1), " + f.name +
                       "(T; P))");
    if (f.name == "model" || f.name == "poly" || f.name == "bound" || f.name == "log3bound" || f.name == "regime") {
      const Arg* first_pos = nullptr;
      for (const auto& a : c.args)
        if (a.name.empty()) {
          first_pos = &a;
          break;
        }
      if (!first_pos || first_pos->value->kind != Expr::Kind::string)
        throw InputError((first_pos ? first_pos->loc : SrcLoc{file_, at.line, at.col}).str() +
                         ": expected a string (in double quotes) as the first argument of " + f.name);
      if (f.name == "bound" || f.name == "log3bound" || f.name == "regime") {
        std::string why;
        if (resolve_bound_id(first_pos->value->str, claim_bound_ids(), &why).empty())
          throw InputError(first_pos->loc.str() + ": expected a bound id: " + why);
      }
    }
  }

  ExprPtr parse_poly_literal(const Expr& c) {
    const Expr& s = *c.args[0].value;
    // The string starts after its opening quote; escapes are rare in polynomials.
    Lexer lx(s.str, file_, s.loc.line, s.loc.col + 1, false);
    auto toks = lx.run();
    for (const auto& t : toks)
      if (t.kind == Token::Kind::ident) {
        VarRef v;
        if (!parse_var(t.text, v))
          throw InputError(SrcLoc{file_, t.line, t.col}.str() +
                           ": expected a variable x5 or x1_0 in the polynomial, got '" + t.text + "'");
      }
    Parser sub(s.str, std::move(toks), file_, next_id_);
    sub.depth_ = depth_;  // the same stack
    return sub.parse_poly_text();
  }

  const std::string& src_;
  std::vector<Token> t_;
  std::string file_;
  int* next_id_;
  std::size_t p_ = 0;
  int depth_ = 0;  // current nesting (Nest)
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
    if (find_claim_function(name) || kConstants.count(name) || name == "half" || name == "interleaved" || name == "A")
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
        const FunctionInfo* f = find_claim_function(e.str);
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
      default:
        for (const auto& k : e.kids) expr(*k);
    }
  }
  const Claim& claim_;
  std::set<std::string> names_;
};

}  // namespace

namespace {

// The claim language is UTF-8 text (titles go into JSON reports): the first
// invalid byte is an input error naming its line and column.
void require_utf8(const std::string& text, const std::string& path) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = n > 0 && i + n <= text.size() && !(n == 2 && c < 0xc2) && !(n == 4 && c > 0xf4);
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    if (ok && n == 3) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0);  // overlong, surrogates
    }
    if (ok && n == 4) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90);
    }
    if (!ok)
      throw InputError(path + ":" + std::to_string(line) + ":" + std::to_string(col) +
                       ": invalid UTF-8 (claim files are UTF-8 text)");
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += n;
  }
}

}  // namespace

ClaimFile parse_claims(const std::string& text, const std::string& path, const std::string& base_dir) {
  require_utf8(text, path);
  Lexer lx(text, path);
  auto toks = lx.run();
  int next_id = 1;
  Parser p(text, std::move(toks), path, &next_id);
  ClaimFile f = p.parse_file(base_dir);
  for (const auto& c : f.claims) Scope(c).run();
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
