#include "runtime/io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>

#include "netpoly/error.hpp"
#include "runtime/limits.hpp"
#include "runtime/text_escape.hpp"

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

// The regular files this run has read: (device, inode) -> its role ("the
// claim file x.np") and a descriptor of it held open, so that its inode is
// never freed and reused by a new file while the run lasts.
struct Input {
  std::string role;
  int fd = -1;
};
struct Inputs {
  std::mutex mu;
  std::map<std::pair<dev_t, ino_t>, Input> files;
  std::size_t held = 0;  // descriptors open
};

Inputs& inputs() {
  static Inputs* in = new Inputs;  // never destroyed: written to until exit
  return *in;
}

// fd: an open descriptor of the file (duplicated here, kept until forget_inputs).
void record_stat(const struct stat& st, const std::string& role, int fd) {
  if (!S_ISREG(st.st_mode)) return;  // a FIFO or a device read is not a file a write could lose
  std::lock_guard<std::mutex> lock(inputs().mu);
  auto [it, fresh] = inputs().files.try_emplace(std::make_pair(st.st_dev, st.st_ino), Input{role, -1});
  // At most kHeld descriptors (a long Python session reads many files); beyond them, and when the process is
  // out of descriptors, the file is recorded without one.
  static constexpr std::size_t kHeld = 256;
  if (fresh && inputs().held < kHeld && (it->second.fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) >= 0) ++inputs().held;
}

// The role of the input with st's identity ("" when this run read no such file).
std::string input_role(const struct stat& st) {
  std::lock_guard<std::mutex> lock(inputs().mu);
  auto it = inputs().files.find(std::make_pair(st.st_dev, st.st_ino));
  return it == inputs().files.end() ? std::string() : it->second.role;
}

[[noreturn]] void refuse_input(const std::string& path, const std::string& role, const std::string& through) {
  throw InputError(path + ": is " + role + through + ", an input of this run; refusing to overwrite it (nothing was "
                   "written): give another output file");
}

// text to a new or regular file, atomically: a temporary in the same
// directory (created exclusively, never through a link), then rename. `old`:
// the file replaced (its permissions, and as root its owner, are kept).
void replace_atomically(const std::string& path, const std::string& target, const std::string& text,
                        const struct stat* old) {
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    tmp = target + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) throw InputError(path + ": cannot write: " + why(errno));
  if (old) {
    if (::geteuid() == 0 && ::fchown(fd, old->st_uid, old->st_gid) != 0) {
      // best effort: the content matters more than the owner
    }
    (void)::fchmod(fd, old->st_mode & 07777);
  }
  const bool ok = write_all(fd, text.data(), text.size());
  const int err = errno;
  const bool closed = ::close(fd) == 0;
  if (!ok || !closed) {
    const int e = ok ? errno : err;
    std::remove(tmp.c_str());
    throw LimitError(path + ": write failed: " + why(e) + (old ? " (the old file is unchanged)" : ""));
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    throw InputError(path + ": cannot replace the file: " + why(e));
  }
}

// text to a FIFO or a character device, which a rename would replace by a regular file.
void write_directly(const std::string& path, const std::string& target, const std::string& text) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw InputError(path + ": cannot write: " + why(errno));
  const bool ok = write_all(fd, text.data(), text.size());
  const int err = errno;
  const bool closed = ::close(fd) == 0;
  if (!ok || !closed) throw LimitError(path + ": write failed: " + why(ok ? errno : err));
}

const char* file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file, FIFO or character device";
}

}  // namespace

void record_input(const std::string& path, const std::string& what) {
  const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  if (fstat(fd, &st) == 0) record_stat(st, what + " " + path, fd);
  ::close(fd);
}

void forget_inputs() {
  std::lock_guard<std::mutex> lock(inputs().mu);
  for (auto& [id, in] : inputs().files)
    if (in.fd >= 0) ::close(in.fd);
  inputs().files.clear();
  inputs().held = 0;
}

void write_output(const std::string& path, const std::string& text) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw InputError(path + ": cannot write: " + why(errno));
    return replace_atomically(path, path, text, nullptr);
  }
  std::string target = path, through;
  if (S_ISLNK(st.st_mode)) {  // written through: the file it names is what the user means
    char* real = ::realpath(path.c_str(), nullptr);
    if (!real) {
      const int e = errno;
      char dest[4096];
      const ssize_t n = ::readlink(path.c_str(), dest, sizeof dest - 1);
      const std::string to = n > 0 ? std::string(dest, static_cast<std::size_t>(n)) : std::string("?");
      if (e == ENOENT)
        throw InputError(path + ": a symbolic link to " + to + ", which does not exist; not written (create the "
                         "file it names, or remove the link)");
      throw InputError(path + ": cannot follow the symbolic link to " + to + ": " + why(e));
    }
    target = real;
    std::free(real);
    through = " (through the symbolic link to " + target + ")";
    if (::stat(target.c_str(), &st) != 0) throw InputError(path + ": cannot write" + through + ": " + why(errno));
  }
  if (const std::string role = input_role(st); !role.empty()) refuse_input(path, role, through);
  if (S_ISREG(st.st_mode)) return replace_atomically(path, target, text, &st);
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) return write_directly(path, target, text);
  throw InputError(path + ": is " + file_kind(st.st_mode) + through + "; expected a file to write");
}

void write_file_atomic(const std::string& path, const std::string& text) { write_output(path, text); }

bool output_is_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return true;  // new (or a dangling link, which write_output refuses)
  return S_ISREG(st.st_mode);
}

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
  {
    struct stat st {};
    if (fstat(fd, &st) == 0) record_stat(st, what + " " + name, fd);
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
  {
    struct stat st {};
    if (fstat(fd_, &st) == 0)
      if (const std::string role = input_role(st); !role.empty()) {
        ::close(fd_);
        fd_ = -1;
        throw InputError(path + ": is " + role + ", an input of this run; refusing to use it as the journal "
                         "(nothing was written): give another journal file");
      }
  }
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
