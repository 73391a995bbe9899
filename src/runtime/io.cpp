#include "netpoly/io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "netpoly/error.hpp"
#include "netpoly/limits.hpp"
#include "netpoly/text_escape.hpp"

namespace netpoly {

namespace {

std::string why(int err) { return std::strerror(err); }


// Writes all of text to fd; false (errno set) on failure.
bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

double input_size_cap() {
  double mem = current_limits().max_memory_bytes;
  if (!(mem > 0)) mem = default_memory_limit();
  return mem / 8;
}

std::string read_text_file(const std::string& path, const std::string& what) {
  const bool stdin_ = path == "-";
  const std::string name = stdin_ ? "<stdin>" : path;
  int fd = STDIN_FILENO;
  if (!stdin_) {
    // open() would stop at a NUL (from Python: "a\0b" opening "a"); the message shows the whole path
    if (path.find('\0') != std::string::npos)
      throw InputError(printable(path) + ": a path cannot contain a NUL character (\\x00)");
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(path + ": cannot open " + what + ": " + why(errno));
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
      ::close(fd);
      throw InputError(path + ": is a directory, expected " + what);
    }
  }
  const double cap = input_size_cap();
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      if (!stdin_) ::close(fd);
      throw InputError(name + ": cannot read " + what + ": " + why(err));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (static_cast<double>(text.size()) > cap) {
      if (!stdin_) ::close(fd);
      throw LimitError(name + ": " + what + " is larger than " + format_bytes(cap) +
                       " (an eighth of the memory limit); raise --max-memory to read it");
    }
  }
  if (!stdin_) ::close(fd);
  return text;
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(path + ": cannot write: " + why(errno));
  const bool ok = write_all(fd, text.data(), text.size());
  const int err = errno;
  const bool closed = ::close(fd) == 0;
  if (!ok || !closed) {
    std::remove(tmp.c_str());
    throw LimitError(path + ": write failed: " + why(ok ? errno : err) + " (the old file is unchanged)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    throw InputError(path + ": cannot replace the file: " + why(e));
  }
}

void check_stdout() {
  std::cout.flush();
  const bool bad = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (bad) {
    const int err = errno;
    std::cout.clear();
    throw LimitError(std::string("cannot write to standard output") + (err ? ": " + why(err) : std::string()));
  }
}

Journal::Journal(const std::string& path, bool resume) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError(path + ": cannot open the journal: " + why(errno));
  // A POSIX record lock: F_GETLK names the holder. It is held through fd_
  // (this process never opens the journal through another descriptor).
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fcntl(fd_, F_SETLK, &fl) != 0) {
    struct flock q {};
    q.l_type = F_WRLCK;
    q.l_whence = SEEK_SET;
    std::string holder;
    if (fcntl(fd_, F_GETLK, &q) == 0 && q.l_type != F_UNLCK) holder = " by process " + std::to_string(q.l_pid);
    ::close(fd_);
    fd_ = -1;
    throw InputError(path + ": the journal is in use" + holder +
                     " (another run writes to it); wait for it to finish, or use another file");
  }
  if (!resume) {
    if (ftruncate(fd_, 0) != 0) throw LimitError(path + ": cannot empty the journal: " + why(errno));
    return;
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::pread(fd_, buf, sizeof buf, static_cast<off_t>(text.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(path + ": cannot read the journal: " + why(errno));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  // A last line without its newline was torn by a killed writer: cut it off.
  const std::size_t end = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  if (end != text.size() && ftruncate(fd_, static_cast<off_t>(end)) != 0)
    throw LimitError(path + ": cannot cut the torn last line: " + why(errno));
  std::size_t start = 0;
  while (start < end) {
    const std::size_t nl = text.find('\n', start);
    if (nl > start) lines_.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

void Journal::rewrite(const std::string& text) {
  if (ftruncate(fd_, 0) != 0 || !write_all(fd_, text.data(), text.size()) || fsync(fd_) != 0)
    throw LimitError(path_ + ": journal write failed: " + why(errno));
}

void Journal::append(const std::string& line) {
  const std::string l = line + "\n";
  // O_APPEND is not set (the lock's descriptor is read and truncated too): seek to the end first.
  if (lseek(fd_, 0, SEEK_END) < 0 || !write_all(fd_, l.data(), l.size()))
    throw LimitError(path_ + ": journal write failed: " + why(errno) +
                     "; the lines before this one are intact, rerun with --resume");
}

}  // namespace netpoly
