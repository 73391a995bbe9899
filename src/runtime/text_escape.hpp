// Strings from outside (claim titles, file names, model names, partitions,
// messages that quote them) shown where a character can do more than be seen:
// a terminal or CI log line, and XML. One decoder of UTF-8 for both.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace netpoly {

// The character at s[i]: its code point and length in bytes; an invalid
// sequence (a stray or truncated byte, an overlong form, a surrogate, beyond
// U+10FFFF) is one byte long and not valid.
struct Utf8Char {
  char32_t cp = 0;
  std::size_t len = 1;
  bool valid = false;
};
Utf8Char utf8_at(std::string_view s, std::size_t i);
bool is_utf8(std::string_view s);

// A string from outside as shown on one terminal or log line: control
// characters (C0, DEL, C1), CR, LF, ESC, the line and paragraph separators
// U+2028/U+2029, the bidirectional controls, the invisible format characters
// (U+200B..U+200F, U+2060..U+2064, U+FEFF, ...: category Cf) and the
// noncharacters U+FFFE/U+FFFF are shown escaped ("\r", "\n", "\t", "\x1b",
// "\u2028", "\uFEFF", "\U000E0041"), and
// each byte of invalid UTF-8 as "\xff". The result is one line with nothing
// a terminal or a CI runner acts on; everything else (backslashes too) is
// shown as it is.
std::string printable(std::string_view s);
// printable(s) for the start of a line: a leading "::" or "##[" (a GitHub
// workflow command) is shown as "\x3a:" or "\x23#[". Everywhere else a
// string from outside follows netpoly's own text on its line.
std::string printable_line_start(std::string_view s);

// The same string as XML 1.0 character data or an attribute value: & < > " '
// escaped, tab and newline kept (CR as &#13;), and what XML 1.0 does not
// allow (other C0 controls, U+FFFE/U+FFFF, invalid UTF-8) shown as
// printable() shows it.
std::string xml_text(std::string_view s);

}  // namespace netpoly
