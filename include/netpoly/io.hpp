// Files in and out as a program linking netpoly (the Python binding, a
// front end) needs them: reading a text file, writing an output through the
// one writer, and starting a run afresh. The rest (journals, the size cap,
// standard output's checks) is the library's (src/runtime/io.hpp).
#pragma once
#include <string>

namespace netpoly {

// Reads a whole file ("-" = standard input) as text. InputError naming the
// file and the reason (missing, permission, a directory, a read error), and
// LimitError beyond input_size_cap(). `what` names the file's role
// ("the model file"). A regular file read (standard input too, when it is
// one) is recorded as an input of this run: write_output refuses to replace it.
std::string read_text_file(const std::string& path, const std::string& what);

// The inputs recorded so far are forgotten (a library caller starting an
// unrelated run in the same process, and tests).
void forget_inputs();

// Writes text to path, the one writer of every output file (tables, plots,
// models, JUnit XML, ...):
// - a new file or a regular file: atomically (a temporary beside it, then
//   rename; the file's permissions kept): a failed write (full disk) removes
//   the temporary and throws LimitError, and the old file stays as it was;
// - a symbolic link: written through: the file it points to is replaced as
//   above and the link stays; a link to nothing is refused (InputError), as
//   the file it would create is not what the link's owner may expect;
// - a FIFO or a character device (/dev/null, /dev/stdout, a terminal):
//   written directly, never replaced by a regular file;
// - a directory, a block device or a socket: refused (InputError);
// - a file this run has read as input (same device and inode, whatever the
//   path): refused (InputError naming it and its role); nothing is written.
void write_output(const std::string& path, const std::string& text);

}  // namespace netpoly
