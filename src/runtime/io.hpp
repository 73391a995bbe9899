// Files in and out: every read says why it failed and is bounded in size;
// every write is checked (a full disk is an error, never a silent exit 0);
// replaced files go through a temporary that never outlives a failure; and
// journals are locked against a second writer and appended a whole line at a
// time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "netpoly/io.hpp"

namespace netpoly {

// The largest input file read whole: an eighth of --max-memory (of the
// default memory limit when none is given).
double input_size_cap();


// Records path (following links) as an input of this run when it is a
// regular file; read_text_file does this for every file it reads.
void record_input(const std::string& path, const std::string& what);



// Whether write_output(path) replaces a file (path is new, a regular file, or
// a link to one) rather than writing into a FIFO or a device: a caller that
// rewrites its output as it goes writes a FIFO or a device once, at the end.
bool output_is_file(const std::string& path);

// The same as write_output (its former name).
void write_file_atomic(const std::string& path, const std::string& text);

// Flushes standard output and throws LimitError when any write to it failed
// (e.g. a full disk), so that a command never exits 0 with its output lost.
void check_stdout();

// An append-only journal of JSON lines, locked for the life of the object: a
// second process opening the same journal is refused at once (InputError
// naming the file and the holder's process id). Lines are appended whole with
// one write each and checked; a torn last line (a killed writer) is cut off
// when the journal is opened for resuming.
class Journal {
 public:
  // resume: keep the lines there (returned by lines()); else start empty.
  Journal(const std::string& path, bool resume);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  const std::vector<std::string>& lines() const { return lines_; }
  // Replaces the whole content (the kept lines, rewritten) in place.
  void rewrite(const std::string& text);
  void append(const std::string& line);  // `line` without its newline
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<std::string> lines_;
};

}  // namespace netpoly
