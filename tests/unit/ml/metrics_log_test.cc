// merlin-train's --metrics file: lines appended and flushed, a second run going on after them.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "merlin/core/ml/metrics_log.h"
#include "tests/unit/samples/sample_test_files.h"

namespace merlin::ml {
namespace {

using samples::testing::ScratchDir;

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(MetricsLog, EachLineIsInTheFileAsSoonAsItIsAppended) {
  ScratchDir dir;
  const auto path = dir.file("trial_00/metrics.jsonl");
  auto log = MetricsLog::open(path);
  ASSERT_TRUE(log.ok()) << log.error().message;
  ASSERT_TRUE(log->append(R"({"budget": 1, "value": 3})").ok());
  EXPECT_EQ(read_all(path), "{\"budget\": 1, \"value\": 3}\n") << "flushed, the log still open";
  ASSERT_TRUE(log->append(R"({"budget": 2, "value": 2})").ok());
  EXPECT_EQ(read_all(path), "{\"budget\": 1, \"value\": 3}\n{\"budget\": 2, \"value\": 2}\n");
}

TEST(MetricsLog, AResumedRunAppendsAfterTheEarlierRunsLines) {
  ScratchDir dir;
  const auto path = dir.file("metrics.jsonl");
  ASSERT_TRUE(MetricsLog::open(path)->append("first").ok());
  ASSERT_TRUE(MetricsLog::open(path)->append("second").ok());
  EXPECT_EQ(read_all(path), "first\nsecond\n");
}

TEST(MetricsLog, AnUnopenablePathIsBadInputNamingIt) {
  ScratchDir dir;
  std::ofstream(dir.file("plain")) << "a file, not a directory";
  auto log = MetricsLog::open(dir.file("plain/metrics.jsonl"));
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.error().code, ErrorCode::kBadInput);
  EXPECT_NE(log.error().message.find("--metrics: cannot open " + dir.file("plain/metrics.jsonl")),
            std::string::npos)
      << log.error().message;
}

}  // namespace
}  // namespace merlin::ml
