// The one output writer (write_output, io.cpp; issue 38, item 13): it writes
// through symbolic links, writes FIFOs and character devices directly instead
// of renaming a regular file over them, and refuses to overwrite a file the
// run has read as input (compared by device and inode).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "netpoly/error.hpp"
#include "runtime/io.hpp"

using namespace netpoly;
namespace fs = std::filesystem;

namespace {

struct Dir {
  fs::path p;
  Dir() {
    p = fs::temp_directory_path() / ("netpoly-writer-" + std::to_string(::getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
  }
  ~Dir() {
    forget_inputs();
    fs::remove_all(p);
  }
  std::string operator()(const std::string& name) const { return (p / name).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("write_output: a symbolic link to a regular file stays a link; the file it names gets the text",
          "[io][writer]") {
  Dir d;
  put(d("target.md"), "old\n");
  fs::create_symlink("target.md", d("link.md"));
  write_output(d("link.md"), "new\n");
  CHECK(fs::is_symlink(d("link.md")));
  CHECK(fs::read_symlink(d("link.md")) == "target.md");
  CHECK(slurp(d("target.md")) == "new\n");
  // No temporary is left beside either.
  CHECK(std::distance(fs::directory_iterator(d.p), fs::directory_iterator()) == 2);
}

TEST_CASE("write_output: a dangling symbolic link is refused and nothing is created", "[io][writer]") {
  Dir d;
  fs::create_symlink("missing.md", d("link.md"));
  CHECK_THROWS_WITH(write_output(d("link.md"), "x"), Catch::Contains("which does not exist"));
  CHECK(fs::is_symlink(d("link.md")));
  CHECK(!fs::exists(d("missing.md")));
}

TEST_CASE("write_output: a regular file is replaced atomically with its permissions kept", "[io][writer]") {
  Dir d;
  put(d("t.md"), "old");
  fs::permissions(d("t.md"), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_output(d("t.md"), "new");
  CHECK(slurp(d("t.md")) == "new");
  CHECK((fs::status(d("t.md")).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  write_output(d("fresh.md"), "made");  // a new file
  CHECK(slurp(d("fresh.md")) == "made");
}

TEST_CASE("write_output: a FIFO gets the bytes (a reader thread reads them) and stays a FIFO", "[io][writer]") {
  Dir d;
  const std::string fifo = d("out.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_output(fifo, "through the pipe\n");
  reader.join();
  CHECK(got == "through the pipe\n");
  struct stat st {};
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("write_output: /dev/null written as root stays a character device", "[io][writer]") {
  if (::geteuid() != 0) {
    WARN("skipped: not root (only root could replace /dev/null)");
    return;
  }
  write_output("/dev/null", "discarded\n");
  struct stat st {};
  REQUIRE(::lstat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}

TEST_CASE("write_output: a file this run read is refused, by any path, and left unchanged", "[io][writer]") {
  Dir d;
  put(d("claims.np"), "claim \"x\"\n");
  CHECK(read_text_file(d("claims.np"), "the claim file") == "claim \"x\"\n");
  CHECK_THROWS_AS(write_output(d("claims.np"), "<xml/>"), InputError);
  CHECK_THROWS_WITH(write_output(d("claims.np"), "<xml/>"),
                    Catch::Contains("the claim file") && Catch::Contains("an input of this run"));
  // Through a symbolic link and through a hard link (same device and inode).
  fs::create_symlink("claims.np", d("sym.xml"));
  CHECK_THROWS_AS(write_output(d("sym.xml"), "<xml/>"), InputError);
  fs::create_hard_link(d("claims.np"), d("hard.xml"));
  CHECK_THROWS_AS(write_output(d("hard.xml"), "<xml/>"), InputError);
  // As a journal, too (a journal truncates what it opens).
  CHECK_THROWS_AS(Journal(d("claims.np"), false), InputError);
  CHECK(slurp(d("claims.np")) == "claim \"x\"\n");
  // Another file is written as ever.
  write_output(d("report.xml"), "<xml/>");
  CHECK(slurp(d("report.xml")) == "<xml/>");
}

TEST_CASE("write_output: a directory is refused", "[io][writer]") {
  Dir d;
  fs::create_directories(d("sub"));
  CHECK_THROWS_WITH(write_output(d("sub"), "x"), Catch::Contains("is a directory"));
}
