// files::copy: the samples copy in merlin_info/ is a new file, not a clone of the source's mode.
#include "merlin/core/util/files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/samples/sample_test_files.h"

namespace merlin::files {
namespace {
using samples::testing::ScratchDir;
using samples::testing::write_file;

// Sets the process umask for one test and restores it.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : old_(::umask(mask)) {}
  ~ScopedUmask() { ::umask(old_); }

 private:
  mode_t old_;
};

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Issue #9, item 8d: a 0666 source gave a world-writable copy whatever the umask.
TEST(FilesCopy, CopyIsCreatedWithTheUmaskNotTheSourcesMode) {
  ScratchDir dir;
  const std::string from = dir.file("samples.csv"), to = dir.file("copy.csv");
  write_file(from, "1,2\n3,4\n");
  ASSERT_EQ(::chmod(from.c_str(), 0666), 0);
  {
    ScopedUmask mask(022);
    ASSERT_TRUE(copy(from, to).ok());
  }
  EXPECT_EQ(mode_of(to), 0644u);
  EXPECT_EQ(read(to).value(), "1,2\n3,4\n");

  const std::string private_copy = dir.file("private.csv");
  {
    ScopedUmask mask(077);
    ASSERT_TRUE(copy(from, private_copy).ok());
  }
  EXPECT_EQ(mode_of(private_copy), 0600u);
}

TEST(FilesCopy, ExecutableSourceGivesAPlainFile) {
  ScratchDir dir;
  write_file(dir.file("gen.npy"), std::string(200'000, 'x'));
  ASSERT_EQ(::chmod(dir.file("gen.npy").c_str(), 0777), 0);
  ScopedUmask mask(002);
  ASSERT_TRUE(copy(dir.file("gen.npy"), dir.file("out.npy")).ok());
  EXPECT_EQ(mode_of(dir.file("out.npy")), 0644u);
  EXPECT_EQ(read(dir.file("out.npy")).value().size(), 200'000u);
}

TEST(FilesCopy, MissingSourceIsAnErrorNamingIt) {
  ScratchDir dir;
  auto r = copy(dir.file("nope.csv"), dir.file("out.csv"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_NE(r.error().message.find("nope.csv"), std::string::npos) << r.error().message;
}

// Secrets (merlin server's password, app.yaml) are 0600 whatever the umask, and never written
// through a file or link someone else put there first.
TEST(FilesWriteNewPrivate, OwnerOnlyWhateverTheUmask) {
  ScratchDir dir;
  {
    ScopedUmask mask(0);
    ASSERT_TRUE(write_new_private(dir.file("secret"), "s3cret\n").ok());
  }
  EXPECT_EQ(mode_of(dir.file("secret")), 0600u);
  EXPECT_EQ(read(dir.file("secret")).value(), "s3cret\n");
}

TEST(FilesWriteNewPrivate, RefusesAnExistingFileOrSymlinkAndKeepsIt) {
  ScratchDir dir;
  write_file(dir.file("there"), "theirs");
  auto r = write_new_private(dir.file("there"), "mine");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_NE(r.error().message.find("there"), std::string::npos) << r.error().message;
  EXPECT_EQ(read(dir.file("there")).value(), "theirs");

  ASSERT_EQ(::symlink(dir.file("target").c_str(), dir.file("link").c_str()), 0);
  EXPECT_FALSE(write_new_private(dir.file("link"), "mine").ok());
  EXPECT_FALSE(exists(dir.file("target")));
}

}  // namespace
}  // namespace merlin::files
