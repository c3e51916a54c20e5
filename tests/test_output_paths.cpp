// io::CommandFiles and io::AtomicOutput on what outputs may replace (issue 40): identity by
// device and inode (hard links, symbolic links, ".."), the refusals, where a file really goes,
// and gmx's numbered backups.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/common/atomic_file.hpp"
#include "io/common/output_paths.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using pairhist::io::AtomicOutput;
using pairhist::io::CommandFiles;
using pairhist::io::OutputTarget;
using pairhist::test::read_all;
using pairhist::test::TempDir;
using pairhist::test::write_all;

void write_output(const std::string& path, const std::string& text) {
  AtomicOutput out(path);
  write_all(out.temp_path(), text);
  out.commit();
}

}  // namespace

TEST_CASE("CommandFiles: outputs compared with inputs and each other by identity") {
  TempDir t("output-paths");
  write_all(t.file("in.xtc"), "frames");
  fs::create_hard_link(t.file("in.xtc"), t.file("hard.xtc"));
  fs::create_symlink(t.file("in.xtc"), t.file("soft.xtc"));
  fs::create_directories(t.file("sub"));
  fs::create_symlink(t.file("new.xvg"), t.file("dangling.xvg"));
  CommandFiles files;
  files.read(t.file("in.xtc"), "-f in.xtc");
  files.write(t.file("hard.xtc"), "-o hard.xtc");
  files.write(t.file("soft.xtc"), "-cn soft.xtc");
  files.write(t.file("new.xvg"), "--a new.xvg");
  files.write(t.file("sub/../new.xvg"), "--b sub/../new.xvg");
  files.write(t.file("dangling.xvg"), "--c dangling.xvg");
  files.write(t.file("sub"), "--d sub");
  files.write(t.file("other.xvg"), "--e other.xvg");
  const std::vector<std::string> lines = files.problems(false);
  CHECK(lines == std::vector<std::string>{
                     "-o hard.xtc would replace -f in.xtc: an output may not replace an input of "
                     "the run (choose another name)",
                     "-cn soft.xtc would replace -f in.xtc: an output may not replace an input of "
                     "the run (choose another name)",
                     "--a new.xvg and --b sub/../new.xvg are the same file: each output needs a "
                     "name of its own",
                     "--a new.xvg and --c dangling.xvg are the same file: each output needs a "
                     "name of its own",
                     "--d sub is a directory: name a file"});
  CHECK_THROWS_WITH_AS(files.check(true), doctest::Contains("-o hard.xtc would replace"),
                       pairhist::UsageError);
  // An input given as a directory stands for the files named in it.
  CommandFiles in_dir;
  write_all(t.file("sub/pairhist.h5"), "run");
  in_dir.read(t.file("sub"), "the run", {"pairhist.h5"});
  in_dir.write(t.file("sub/pairhist.h5"), "--x");
  CHECK(in_dir.problems(false).size() == 1);
}

TEST_CASE("output_target: links replaced at their target, devices and pipes written through") {
  TempDir t("output-target");
  fs::create_directories(t.file("real"));
  fs::create_symlink("real/t.xvg", t.file("rel.xvg"));  // relative to the link's directory
  const OutputTarget link = pairhist::io::output_target(t.file("rel.xvg"));
  CHECK(link.kind == OutputTarget::Kind::replace);
  CHECK(link.path == t.file("real/t.xvg"));
  write_output(t.file("rel.xvg"), "through the link\n");
  CHECK(fs::is_symlink(t.file("rel.xvg")));
  CHECK(read_all(t.file("real/t.xvg")) == "through the link\n");
  CHECK(t.entries() == 2);  // no temporary left beside the link
  CHECK(fs::directory_iterator(t.file("real")) != fs::directory_iterator());

  REQUIRE(::mkfifo(t.file("fifo").c_str(), 0600) == 0);
  const OutputTarget fifo = pairhist::io::output_target(t.file("fifo"));
  CHECK(fifo.kind == OutputTarget::Kind::write_through);
  CHECK(fifo.path == t.file("fifo"));
  AtomicOutput through(t.file("fifo"));
  CHECK(through.temp_path().rfind(t.dir.string(), 0) != 0);  // not beside a pipe
  const OutputTarget null = pairhist::io::output_target("/dev/null");
  CHECK(null.kind == OutputTarget::Kind::write_through);
  write_output("/dev/null", "nothing\n");
  struct stat st {};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(pairhist::io::output_refusal("/dev/no-such-device") ==
        "does not exist (under /dev and /proc pairhist writes only to what is there)");
  CHECK_THROWS_AS(AtomicOutput(t.file("real")), pairhist::OutputError);  // a directory
}

TEST_CASE("numbered backups of the files marked, as gmx names them") {
  TempDir t("backups");
  CHECK(pairhist::io::backup_path("rdf.xvg", 1) == "./#rdf.xvg.1#");
  CHECK(pairhist::io::backup_path(t.file("rdf.xvg"), 12) == t.file("#rdf.xvg.12#"));
  const std::string path = t.file("rdf.xvg");
  write_all(path, "first\n");
  write_output(path, "unmarked\n");  // not marked: replaced as before
  CHECK(t.entries() == 1);
  CommandFiles files;
  files.write(path, "-o rdf.xvg");
  files.check(false);
  write_output(path, "second\n");
  CHECK(read_all(t.file("#rdf.xvg.1#")) == "unmarked\n");
  write_output(path, "third\n");  // the mark was the replaced file's: used once
  CHECK(t.entries() == 2);
  files.check(false);
  write_output(path, "fourth\n");
  CHECK(read_all(t.file("#rdf.xvg.2#")) == "third\n");
  CHECK(read_all(path) == "fourth\n");
  files.check(true);  // --overwrite: no mark
  write_output(path, "fifth\n");
  CHECK(t.entries() == 3);
}
