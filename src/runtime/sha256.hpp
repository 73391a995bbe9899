// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits: what the
// check journal records of a claim's text and of the files it reads, so that
// an entry is reused only for the same content.
#pragma once
#include <string>
#include <string_view>

namespace netpoly {

std::string sha256_hex(std::string_view bytes);

}  // namespace netpoly
