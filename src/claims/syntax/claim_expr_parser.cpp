// The expression grammar of the claim language (claim_expr_parser.hpp): the
// members of ExprParser.
#include "claims/syntax/claim_expr_parser.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "runtime/suggest.hpp"

namespace netpoly::claims_detail {

ExprPtr ExprParser::parse_poly_text() {
  ExprPtr e = parse_additive();
  if (!at_eof()) fail("an operator or the end of the polynomial");
  return e;
}

void ExprParser::fail_at(const Token& t, const std::string& expected) const {
  std::string got = t.kind == Token::Kind::string                                  ? "\"" + t.text + "\""
                    : t.kind == Token::Kind::newline || t.kind == Token::Kind::eof ? t.text
                                                                                   : "'" + t.text + "'";
  throw InputError(SrcLoc{file_, t.line, t.col}.str() + ": expected " + expected + ", got " + got);
}

ExprPtr ExprParser::sealed(std::shared_ptr<Expr> e) {
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

std::shared_ptr<Expr> ExprParser::node(Expr::Kind k, const Token& at) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->loc = SrcLoc{file_, at.line, at.col};
  e->id = (*next_id_)++;
  return e;
}

Condition ExprParser::parse_condition() {
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

std::vector<Arg> ExprParser::parse_options(const std::vector<std::string>& context) {
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

ExprPtr ExprParser::parse_option_value(const std::string& name) {
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

ExprPtr ExprParser::parse_expr() {
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

ExprPtr ExprParser::parse_additive() {
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

ExprPtr ExprParser::parse_mult() {
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

ExprPtr ExprParser::parse_unary() {
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

ExprPtr ExprParser::parse_power() {
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

ExprPtr ExprParser::parse_postfix() {
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

ExprPtr ExprParser::parse_primary() {
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
      if (is_ident("for")) {  // [BODY for NAME in LIST]
        ExprPtr c = parse_comprehension(l->kids[0], first);
        expect_op("]", "']' after the comprehension");
        return c;
      }
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

ExprPtr ExprParser::parse_comprehension(const ExprPtr& body, std::size_t first) {
  Nest guard(*this);
  auto c = node(Expr::Kind::comprehension, cur());
  c->loc = body->loc;
  ++p_;  // for
  c->str = expect_ident("a name after 'for'");
  if (!is_ident("in")) fail("'in'");
  ++p_;
  c->kids.push_back(body);
  c->kids.push_back(parse_expr());
  c->text = text_from(first);
  return sealed(c);
}

ExprPtr ExprParser::parse_call(const Token& name_tok, std::size_t first) {
  auto c = node(Expr::Kind::call, name_tok);
  c->str = name_tok.text;
  const FunctionInfo* f = find_claim_function(c->str);
  if (!f) {
    std::vector<std::string> names;
    for (const auto& g : claim_functions()) names.push_back(g.name);
    const auto near = near_names(name_tok.text, names);
    fail_at(name_tok, near.empty() ? "a known function (" + join(names) + ")"
                                   : "a known function (did you mean " + or_list(near) + "?)");
  }
  c->fn = f;
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
        const std::size_t afirst = p_;
        a.value = parse_expr();
        if (is_ident("for")) a.value = parse_comprehension(a.value, afirst);  // sum(BODY for NAME in LIST)
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

PartSpec ExprParser::parse_partition() {
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

void ExprParser::check_call(const Expr& c, const FunctionInfo& f, const Token& at) {
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
                     (want == "1" || want == "at least 1" ? "" : "s") + " for " + f.name + ", got " + std::to_string(pos));
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

ExprPtr ExprParser::parse_poly_literal(const Expr& c) {
  const Expr& s = *c.args[0].value;
  // The string starts after its opening quote; escapes are rare in polynomials.
  Lexer lx(s.str, file_, s.loc.line, s.loc.col + 1, false);
  auto toks = lx.run();
  for (const auto& t : toks)
    if (t.kind == Token::Kind::ident) {
      VarRef v;
      if (t.text != "I" && !parse_var(t.text, v))  // I: the imaginary unit (a polynomial over Q(i))
        throw InputError(SrcLoc{file_, t.line, t.col}.str() +
                         ": expected a variable x5 or x1_0, or I, in the polynomial, got '" + t.text + "'");
    }
  ExprParser sub(s.str, std::move(toks), file_, next_id_);
  sub.depth_ = depth_;  // the same stack
  return sub.parse_poly_text();
}

}  // namespace netpoly::claims_detail
