// read_output_file: what merlin collect opens of a sample's outputs (issue #25): regular files
// only, never a device, a FIFO or a directory, and never more than the cap.
#include "merlin/core/data/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace merlin::data {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "merlin-output-file.XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
};

TEST(CollectOutputFile, ARegularFileIsReadWhole) {
  TempDir d;
  std::string text;
  auto r = read_output_file(d.write("r.json", "{\"e\": 1}"), 1024, text);
  EXPECT_EQ(r.status, SampleStatus::kOk);
  EXPECT_EQ(text, "{\"e\": 1}");
}

TEST(CollectOutputFile, NoFileIsMissing) {
  TempDir d;
  std::string text;
  auto r = read_output_file((d.path / "none.json").string(), 1024, text);
  EXPECT_EQ(r.status, SampleStatus::kMissing);
  EXPECT_EQ(r.problem, "no such file");
}

TEST(CollectOutputFile, AFifoIsRefusedWithoutBlocking) {
  TempDir d;
  const auto fifo = (d.path / "r.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string text;
  auto r = read_output_file(fifo, 1024, text);  // no writer: a blocking open would hang
  EXPECT_EQ(r.status, SampleStatus::kMalformed);
  EXPECT_EQ(r.problem, "not a regular file (a FIFO); merlin collect reads only regular files");
}

TEST(CollectOutputFile, ALinkToADeviceIsRefusedAndALinkToAFileIsRead) {
  TempDir d;
  fs::create_symlink("/dev/zero", d.path / "zero.json");
  std::string text;
  auto r = read_output_file((d.path / "zero.json").string(), 1024, text);
  EXPECT_EQ(r.status, SampleStatus::kMalformed);
  EXPECT_NE(r.problem.find("not a regular file (a character device)"), std::string::npos);
  d.write("real.json", "[1]");
  fs::create_symlink("real.json", d.path / "link.json");
  r = read_output_file((d.path / "link.json").string(), 1024, text);
  EXPECT_EQ(r.status, SampleStatus::kOk);
  EXPECT_EQ(text, "[1]");
}

TEST(CollectOutputFile, ADirectoryIsRefused) {
  TempDir d;
  fs::create_directory(d.path / "r.json");
  std::string text;
  auto r = read_output_file((d.path / "r.json").string(), 1024, text);
  EXPECT_EQ(r.status, SampleStatus::kMalformed);
  EXPECT_NE(r.problem.find("(a directory)"), std::string::npos);
}

TEST(CollectOutputFile, AFileAboveTheCapIsRefusedNamingTheOption) {
  TempDir d;
  const auto p = d.write("big.json", std::string(2000, ' ') + "1");
  std::string text;
  auto r = read_output_file(p, 1000, text);
  EXPECT_EQ(r.status, SampleStatus::kMalformed);
  EXPECT_EQ(r.problem,
            "2001 bytes, more than --max-output-size 1000 bytes (raise it to read this file)");
  EXPECT_TRUE(text.empty());
  EXPECT_EQ(read_output_file(p, 2001, text).status, SampleStatus::kOk);
  EXPECT_EQ(text.size(), 2001u);
}

TEST(CollectOutputFile, FilesOfEverySizeAreReadWholeIntoAReusedBuffer) {
  TempDir d;
  std::string text = "what an earlier file left here, longer than the next";
  for (std::size_t size : {0, 1, 4095, 4096, 65535, 65536, 65537, 300000}) {
    std::string body(size, 'x');
    for (std::size_t i = 0; i < size; i += 7) body[i] = static_cast<char>('a' + i % 26);
    auto r = read_output_file(d.write("f" + std::to_string(size), body), 1 << 20, text);
    EXPECT_EQ(r.status, SampleStatus::kOk) << size;
    EXPECT_EQ(text, body) << size;
  }
}

TEST(CollectOutputFile, AFileLongerThanItsStatSaysIsReadToItsEndUpToTheCap) {
  // /proc files are regular files whose size reads 0: everything in them is "grown".
  std::string text;
  auto r = read_output_file("/proc/self/status", 1 << 20, text);
  ASSERT_EQ(r.status, SampleStatus::kOk) << r.problem;
  EXPECT_NE(text.find("Name:"), std::string::npos);
  EXPECT_NE(text.find("nonvoluntary_ctxt_switches:"), std::string::npos) << "read short of its end";
  r = read_output_file("/proc/self/status", 64, text);
  EXPECT_EQ(r.status, SampleStatus::kMalformed);
  EXPECT_EQ(r.problem,
            "more than --max-output-size 64 bytes (it grew while it was read; raise the cap to "
            "read it)");
  EXPECT_TRUE(text.empty());
}

}  // namespace
}  // namespace merlin::data
