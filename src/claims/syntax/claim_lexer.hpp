// The claim language's tokens and lexer, and the small helpers the parser
// shares (internal to src/claims).
#pragma once
#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "claims/syntax/claim_parser.hpp"
#include "netpoly/error.hpp"
#include "netpoly/methods.hpp"

namespace netpoly::claims_detail {


inline const std::set<std::string> kKeywords = {"claim", "for",    "forall", "exists", "let",
                                         "where", "assume", "check",  "using",  "show"};
inline const std::set<std::string> kConstants = {"true", "false", "I"};  // I: the imaginary unit

inline std::vector<std::string> symbol_values(const std::string& option) {
  if (option == "activation") return {"none", "square"};
  if (option == "weights") return {"small", "wide", "generic"};
  if (option == "vec") return {"row", "column"};
  if (option == "blocks") return {"kron", "diagonal"};
  if (option == "at") return {"output", "input"};
  if (option == "last") return {"printed", "repaired"};
  if (option == "v") return {"omega", "rational"};
  if (option == "norm") return {"max", "mean_square", "mean_abs"};
  if (option == "param_count") return {"netpoly", "ao_eq4", "ao_eq2", "lv"};
  if (option == "methods") {
    std::vector<std::string> ids;
    for (Method m : registered_methods()) ids.emplace_back(m.id());
    return ids;
  }
  if (option == "arch") return {"attention", "mixer", "mlp", "product"};
  return {};
}

inline std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
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

inline std::string collapse(const std::string& s) {
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

inline bool parse_var(const std::string& s, VarRef& v) {
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

}  // namespace netpoly::claims_detail
