// `merlin server start` points app.yaml at its Redis without touching the rest of the file.
#include "merlin/core/server/app_yaml_blocks.h"

#include <gtest/gtest.h>

#include "merlin/core/server/process_file.h"
#include "merlin/core/server/server_probe.h"

namespace merlin::server {
namespace {

const auto kBlocks = server_blocks("127.0.0.1", 6400, "/home/u/.merlin/server/redis.pass");

TEST(AppYamlBlocks, ServerBlocksAreMerlinsKeysWithThePasswordFileNotThePassword) {
  EXPECT_EQ(kBlocks[0].first, "broker");
  EXPECT_EQ(kBlocks[0].second,
            "broker:\n  name: redis\n  username: default\n  password: "
            "\"/home/u/.merlin/server/redis.pass\"\n  server: \"127.0.0.1\"\n  port: 6400\n");
  EXPECT_EQ(kBlocks[1].first, "results_backend");
}

TEST(AppYamlBlocks, AnEmptyFileGetsBothBlocks) {
  EXPECT_EQ(replace_top_level_blocks("", kBlocks), kBlocks[0].second + kBlocks[1].second);
}

TEST(AppYamlBlocks, OtherKeysCommentsAndOrderAreKept) {
  const std::string yaml =
      "# my settings\n"
      "celery:\n  override:\n    visibility_timeout: 86400\n"
      "broker:\n  name: rabbitmq\n  server: old.host\n\n  port: 5671\n"
      "\n"
      "# scratch for staging\n"
      "scratch: /tmp/x\n"
      "results_backend:\n  name: redis\n  server: old.host\n";
  const std::string want =
      "# my settings\n"
      "celery:\n  override:\n    visibility_timeout: 86400\n" +
      kBlocks[0].second +
      "\n"
      "# scratch for staging\n"
      "scratch: /tmp/x\n" +
      kBlocks[1].second;
  EXPECT_EQ(replace_top_level_blocks(yaml, kBlocks), want);
}

TEST(AppYamlBlocks, ReplacingTwiceGivesTheSameText) {
  std::string once = replace_top_level_blocks("scratch: /s\nbroker: {name: redis}\n", kBlocks);
  EXPECT_EQ(replace_top_level_blocks(once, kBlocks), once);
  EXPECT_EQ(once, "scratch: /s\n" + kBlocks[0].second + kBlocks[1].second);
}

TEST(AppYamlBlocks, ALaterDuplicateBlockIsRemoved) {
  EXPECT_EQ(replace_top_level_blocks("broker:\n  a: 1\nx: 1\nbroker:\n  b: 2\n", {kBlocks[0]}),
            kBlocks[0].second + "x: 1\n");
}

TEST(AppYamlBlocks, AKeyThatOnlyStartsWithBrokerIsNotTheBlock) {
  EXPECT_EQ(replace_top_level_blocks("broker_extra: 1\n", {kBlocks[0]}),
            "broker_extra: 1\n" + kBlocks[0].second);
}

TEST(ProcessFile, RoundTripsMerlinsKeys) {
  ProcessRecord r{4242, "node1", "127.0.0.1", 6400, 1700000000};
  std::string text = format_process_file(r);
  EXPECT_NE(text.find("parent_pid: 4242\n"), std::string::npos);
  EXPECT_NE(text.find("image_pid: 4242\n"), std::string::npos);
  auto back = parse_process_file(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->pid, 4242);
  EXPECT_EQ(back->hostname, "node1");
  EXPECT_EQ(back->bind, "127.0.0.1");
  EXPECT_EQ(back->port, 6400);
  EXPECT_EQ(back->started, 1700000000);
  EXPECT_FALSE(parse_process_file("hostname: x\n").has_value());
}

TEST(ServerProbe, ParseInfoReadsPidUptimeMemoryAndKeysOfEveryDatabase) {
  auto f = parse_info(
      "# Server\r\nredis_version:7.0.15\r\nprocess_id:123\r\nuptime_in_seconds:75\r\n"
      "# Memory\r\nused_memory:1048576\r\n# Persistence\r\nloading:0\r\n"
      "# Keyspace\r\ndb0:keys=12,expires=0,avg_ttl=0\r\ndb3:keys=3,expires=1,avg_ttl=5\r\n");
  EXPECT_EQ(f.version, "7.0.15");
  EXPECT_EQ(f.pid, 123);
  EXPECT_EQ(f.uptime_seconds, 75);
  EXPECT_EQ(f.used_memory, 1048576);
  EXPECT_EQ(f.keys, 15);
  EXPECT_FALSE(f.loading);
  EXPECT_TRUE(parse_info("loading:1\r\n").loading);
}

}  // namespace
}  // namespace merlin::server
