// Celery flags in a worker's `args`: the concurrency is honoured, Celery's common tuning flags
// accepted silently, the ones that would change a worker's behaviour reported as ignored.
#include "merlin/run/celery_args.h"

#include <gtest/gtest.h>

namespace merlin::run {
namespace {

TEST(CeleryArgs, ConcurrencyInEveryCelerySpelling) {
  for (const char* args : {"--concurrency 4", "--concurrency=4", "-c 4", "-c4",
                           "-l INFO --concurrency 4 --prefetch-multiplier 1"}) {
    auto r = parse_celery_args(args);
    ASSERT_TRUE(r.ok()) << args;
    EXPECT_EQ(r->concurrency, 4) << args;
  }
}

TEST(CeleryArgs, CommonCeleryFlagsAreAcceptedSilently) {
  // The bundled hello_samples example's args, and the tuning flags Merlin's docs show: they
  // change nothing a study computes here (issue #25: "-l INFO" was reported as ignored).
  for (const char* args :
       {"-l INFO --concurrency=2", "--loglevel=DEBUG -O fair --prefetch-multiplier 1",
        "-lINFO -Ofair -E --events --without-gossip --without-mingle --without-heartbeat",
        "-n w1@%h --hostname=w2 --max-tasks-per-child 10 --max-memory-per-child=1000"}) {
    auto r = parse_celery_args(args);
    ASSERT_TRUE(r.ok()) << args;
    EXPECT_TRUE(r->ignored.empty()) << args << ": " << r->ignored.front();
  }
}

TEST(CeleryArgs, FlagsThatWouldChangeBehaviourAreListedWithTheirValuesInOrder) {
  auto r = parse_celery_args(
      "-l INFO -Q other --concurrency 2 --autoscale=8,2 -P solo "
      "--time-limit 60 --bogus");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->concurrency, 2);
  EXPECT_EQ(r->ignored, (std::vector<std::string>{"-Q other", "--autoscale=8,2", "-P solo",
                                                  "--time-limit 60", "--bogus"}));
}

TEST(CeleryArgs, NoConcurrencyLeavesItUnset) {
  auto r = parse_celery_args("-l INFO");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->concurrency.has_value());
  EXPECT_TRUE(parse_celery_args("").ok());
}

TEST(CeleryArgs, BadConcurrencyIsBadInputNamingTheValue) {
  for (const char* args : {"--concurrency zero", "--concurrency 0", "-c", "--concurrency=-3"}) {
    auto r = parse_celery_args(args);
    ASSERT_FALSE(r.ok()) << args;
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput) << args;
  }
  EXPECT_NE(parse_celery_args("--concurrency zero").error().message.find("'zero'"),
            std::string::npos);
}

TEST(CeleryArgs, ConcurrencyAboveTheSlotLimitIsBadInput) {
  EXPECT_EQ(parse_celery_args("--concurrency 4096")->concurrency, 4096);
  for (const char* args : {"--concurrency 4097", "-c100000", "--concurrency=99999999999999"}) {
    auto r = parse_celery_args(args);
    ASSERT_FALSE(r.ok()) << args;
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
    EXPECT_NE(r.error().message.find("from 1 to 4096"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace merlin::run
