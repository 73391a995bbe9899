// The expression grammar of the claim language: expressions, calls with
// their signature checks (the function table), partitions, options,
// conditions and polynomial literals. claim_parser.cpp adds claims and
// clauses on top (internal to src/claims); the members are defined in
// claim_expr_parser.cpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "claims/syntax/claim_lexer.hpp"
#include "claims/eval/claim_bounds.hpp"

namespace netpoly::claims_detail {

class ExprParser {
 public:
  ExprParser(const std::string& src, std::vector<Token> toks, std::string file, int* next_id)
      : src_(src), t_(std::move(toks)), file_(std::move(file)), next_id_(next_id) {}

  // A polynomial literal's text: an expression over variables and numbers.
  ExprPtr parse_poly_text();

 protected:
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
  [[noreturn]] void fail_at(const Token& t, const std::string& expected) const;
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
    ExprParser& p;
    explicit Nest(ExprParser& q) : p(q) {
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
  ExprPtr sealed(std::shared_ptr<Expr> e);
  std::shared_ptr<Expr> node(Expr::Kind k, const Token& at);

  Condition parse_condition();

  // name = value {, name = value}; `methods` takes a list of words.
  std::vector<Arg> parse_options(const std::vector<std::string>& context);

  ExprPtr parse_option_value(const std::string& name);

  // ---------------------------------------------------------- expressions
  ExprPtr parse_expr();

  ExprPtr parse_additive();

  ExprPtr parse_mult();

  ExprPtr parse_unary();

  ExprPtr parse_power();

  ExprPtr parse_postfix();

  ExprPtr parse_primary();

  // `for NAME in LIST` after BODY: the list of BODY's values, NAME bound to
  // each item of LIST in turn (a list argument or a list literal).
  ExprPtr parse_comprehension(const ExprPtr& body, std::size_t first);

  ExprPtr parse_call(const Token& name_tok, std::size_t first);

  PartSpec parse_partition();

  // Checks positional counts and named arguments against the function table.
  void check_call(const Expr& c, const FunctionInfo& f, const Token& at);

  ExprPtr parse_poly_literal(const Expr& c);

  const std::string& src_;
  std::vector<Token> t_;
  std::string file_;
  int* next_id_;
  std::size_t p_ = 0;
  int depth_ = 0;  // current nesting (Nest)
};

}  // namespace netpoly::claims_detail
