// Who may read `merlin monitor --web`, and which files /err/ may serve.
#include "adapters/web/web_access.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace merlin::web {
namespace {
namespace fs = std::filesystem;

HttpRequest with_query_token(const std::string& t) {
  HttpRequest r;
  r.path = "/api/status";
  r.query["token"] = t;
  return r;
}

HttpRequest with_bearer(const std::string& value) {
  HttpRequest r;
  r.path = "/api/status";
  r.headers["authorization"] = value;
  return r;
}

TEST(TokenAccepted, NoTokenSetLetsEveryRequestIn) {
  EXPECT_TRUE(token_accepted(HttpRequest{}, ""));
}

TEST(TokenAccepted, TheTokenAsQueryParameterOrBearerHeader) {
  const std::string t = "0123456789abcdef0123";
  EXPECT_TRUE(token_accepted(with_query_token(t), t));
  EXPECT_TRUE(token_accepted(with_bearer("Bearer " + t), t));
}

TEST(TokenAccepted, MissingWrongOrMalformedTokensAreRefused) {
  const std::string t = "0123456789abcdef0123";
  EXPECT_FALSE(token_accepted(HttpRequest{}, t));
  EXPECT_FALSE(token_accepted(with_query_token(""), t));
  EXPECT_FALSE(token_accepted(with_query_token(t + "x"), t));
  EXPECT_FALSE(token_accepted(with_query_token(t.substr(1)), t));
  EXPECT_FALSE(token_accepted(with_bearer(t), t)) << "no Bearer scheme";
  EXPECT_FALSE(token_accepted(with_bearer("Basic " + t), t));
  EXPECT_FALSE(token_accepted(with_bearer("Bearer 0123456789abcdef0124"), t));
}

// RFC 7235 section 2.1: the auth-scheme is case-insensitive (issue #25, item 12).
TEST(TokenAccepted, TheBearerSchemeInAnyCaseAndAfterSeveralSpaces) {
  const std::string t = "0123456789abcdef0123";
  EXPECT_TRUE(token_accepted(with_bearer("bearer " + t), t));
  EXPECT_TRUE(token_accepted(with_bearer("BEARER " + t), t));
  EXPECT_TRUE(token_accepted(with_bearer("BeArEr " + t), t));
  EXPECT_TRUE(token_accepted(with_bearer("Bearer   " + t), t));
  EXPECT_FALSE(token_accepted(with_bearer("Bearer" + t), t)) << "no space after the scheme";
  EXPECT_FALSE(token_accepted(with_bearer("bearers " + t), t));
  EXPECT_FALSE(token_accepted(with_bearer("bearer " + t + " "), t)) << "the token is exact";
}

TEST(GenerateToken, SixtyFourHexDigitsAndNeverTheSameTwice) {
  auto a = generate_token(), b = generate_token();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 64u);
  EXPECT_EQ(a->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(*a, *b);
}

TEST(IsLoopback, OnlyAddressesOfThisHostAlone) {
  EXPECT_TRUE(is_loopback("127.0.0.1"));
  EXPECT_TRUE(is_loopback("127.1.2.3"));
  EXPECT_TRUE(is_loopback("::1"));
  EXPECT_TRUE(is_loopback("localhost"));
  EXPECT_FALSE(is_loopback("0.0.0.0"));
  EXPECT_FALSE(is_loopback("::"));
  EXPECT_FALSE(is_loopback("10.0.0.5"));
}

class ErrFileIn : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("merlin-web-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    ws_ = root_ / "study_20260101-000000";
    fs::create_directories(ws_ / "sim/00");
    write(ws_ / "sim/00/sim.err", "boom\n");
    write(ws_ / "sim/00/sim.out", "out\n");
    write(root_ / "secret.err", "outside\n");
    fs::create_symlink(root_ / "secret.err", ws_ / "sim/00/link.err");
  }
  void TearDown() override { fs::remove_all(root_); }
  static void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  fs::path root_, ws_;
};

TEST_F(ErrFileIn, AnErrFileOfTheWorkspaceIsServed) {
  auto p = err_file_in(ws_.string(), "sim/00/sim.err");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(*p, fs::canonical(ws_ / "sim/00/sim.err").string());
}

TEST_F(ErrFileIn, TraversalAbsolutePathsAndLinksOutAreRefusedAsBadInput) {
  for (const char* bad : {"../secret.err", "sim/../../secret.err", "sim/00/../../../secret.err",
                          "/etc/passwd", "sim/00/link.err", "sim/00/sim.out", ""}) {
    auto p = err_file_in(ws_.string(), bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.error().code, ErrorCode::kBadInput) << bad << ": " << p.error().message;
  }
}

TEST_F(ErrFileIn, AMissingFileIsNotFoundNotForbidden) {
  auto p = err_file_in(ws_.string(), "sim/01/sim.err");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::kRuntime);
}

TEST_F(ErrFileIn, TheTailStartsAtALine) {
  write(ws_ / "sim/00/sim.err", "first line\nsecond line\nthird\n");
  auto t = file_tail((ws_ / "sim/00/sim.err").string(), 12);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, "third\n");
  auto all = file_tail((ws_ / "sim/00/sim.err").string(), 1000);
  EXPECT_EQ(*all, "first line\nsecond line\nthird\n");
}

TEST_F(ErrFileIn, ARangesTailStaysInsideTheRange) {
  write(ws_ / "sim/00/log.err", "AAAA\nfirst\nsecond\nBBBB");
  auto whole = range_tail((ws_ / "sim/00/log.err").string(), 5, 13, 100);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(*whole, "first\nsecond\n");
  auto cut = range_tail((ws_ / "sim/00/log.err").string(), 5, 13, 9);
  EXPECT_EQ(*cut, "second\n");
  EXPECT_FALSE(range_tail((ws_ / "sim/00/log.err").string(), 20, 10, 100).ok())
      << "shorter than the index says";
}

}  // namespace
}  // namespace merlin::web
