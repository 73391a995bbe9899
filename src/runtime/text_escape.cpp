// Strings from outside on a terminal line and in XML (text_escape.hpp).
#include "runtime/text_escape.hpp"

#include <cstdio>

namespace netpoly {

Utf8Char utf8_at(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {c, 1, true};
  const std::size_t n = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return {c, 1, false};
  char32_t cp = c & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b >> 6) != 0x2) return {c, 1, false};
    cp = (cp << 6) | (b & 0x3f);
  }
  static constexpr char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return {c, 1, false};
  return {cp, n, true};
}

bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const Utf8Char u = utf8_at(s, i);
    if (!u.valid) return false;
    i += u.len;
  }
  return true;
}

namespace {

// The invisible format characters (Unicode category Cf): zero-width spaces and
// joiners, the word joiner and invisible operators, U+FEFF, the soft hyphen,
// the deprecated format controls, the interlinear annotations and the tags. On
// a line they hide or disguise text ("PASS" next to an unseen U+200B reads the
// same as "PASS"), so they are shown escaped like the bidirectional controls.
bool invisible_format(char32_t cp) {
  return cp == 0xad || cp == 0x61c || cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
         (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x206a && cp <= 0x206f) || cp == 0xfeff ||
         (cp >= 0xfff9 && cp <= 0xfffb) || cp == 0xe0001 || (cp >= 0xe0020 && cp <= 0xe007f);
}

bool acts_on_a_line(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || invisible_format(cp) ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfffe || cp == 0xffff;
}

bool allowed_in_xml(char32_t cp) {
  return cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) ||
         cp >= 0x10000;
}

std::string escaped(const Utf8Char& u, unsigned char byte) {
  char b[16];
  if (!u.valid) {
    std::snprintf(b, sizeof b, "\\x%02x", byte);
    return b;
  }
  switch (u.cp) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: break;
  }
  if (u.cp < 0x80)
    std::snprintf(b, sizeof b, "\\x%02x", static_cast<unsigned>(u.cp));
  else if (u.cp < 0x10000)
    std::snprintf(b, sizeof b, "\\u%04X", static_cast<unsigned>(u.cp));
  else
    std::snprintf(b, sizeof b, "\\U%08X", static_cast<unsigned>(u.cp));
  return b;
}

}  // namespace

std::string printable(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const Utf8Char u = utf8_at(s, i);
    if (!u.valid || acts_on_a_line(u.cp))
      o += escaped(u, static_cast<unsigned char>(s[i]));
    else
      o.append(s.substr(i, u.len));
    i += u.len;
  }
  return o;
}

std::string printable_line_start(std::string_view s) {
  std::string o = printable(s);
  if (o.rfind("::", 0) == 0 || o.rfind("##[", 0) == 0) o = (o[0] == ':' ? "\\x3a" : "\\x23") + o.substr(1);
  return o;
}

std::string xml_text(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const Utf8Char u = utf8_at(s, i);
    if (!u.valid || !allowed_in_xml(u.cp)) {
      o += escaped(u, static_cast<unsigned char>(s[i]));
    } else {
      switch (u.cp) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&apos;"; break;
        case '\r': o += "&#13;"; break;
        default: o.append(s.substr(i, u.len));
      }
    }
    i += u.len;
  }
  return o;
}

}  // namespace netpoly
