// Which suspects are lost (run/study_recovery.h): a study that read zero pending with unfinished
// samples is lost unless its work showed up on the recheck its backend asks for, or `merlin
// purge` removed its messages on purpose. Only a backend that declares a recheck waits.
#include "merlin/run/study_recovery.h"

#include <gtest/gtest.h>

#include "tests/fakes/memory_backend.h"

namespace merlin::run {
namespace {

std::vector<LostStudy> suspects(std::initializer_list<const char*> keys) {
  std::vector<LostStudy> out;
  for (const char* k : keys) {
    LostStudy l;
    l.key = k;
    l.registered = true;
    out.push_back(l);
  }
  return out;
}

std::vector<std::string> keys(const std::vector<LostStudy>& lost) {
  std::vector<std::string> out;
  for (const auto& l : lost) out.push_back(l.key);
  return out;
}

TEST(ConfirmLost, WithoutARecheckEverySuspectNotPurgedIsLost) {
  auto lost = confirm_lost(suspects({"a", "b", "c"}), {false, true, false}, {});
  EXPECT_EQ(keys(lost), (std::vector<std::string>{"a", "c"}));
}

TEST(ConfirmLost, ASuspectWhoseWorkShowedUpOnTheRecheckIsNotLost) {
  auto lost = confirm_lost(suspects({"a", "b"}), {false, false}, {false, true});
  EXPECT_EQ(keys(lost), (std::vector<std::string>{"b"}));
}

TEST(ConfirmLost, APurgedStudyIsNeverLostEvenWhenItStillReadsZero) {
  auto lost = confirm_lost(suspects({"a"}), {true}, {true});
  EXPECT_TRUE(lost.empty());
}

TEST(FindLostStudies, ABackendWithoutARecheckNeverWaits) {
  testing::MemoryBackend backend;
  ASSERT_EQ(backend.lost_recheck().count(), 0);
  int waits = 0;
  auto lost = find_lost_studies(backend, "none", ::testing::TempDir(),
                                [&](std::chrono::milliseconds) { ++waits; });
  ASSERT_TRUE(lost.ok()) << lost.error().message;
  EXPECT_TRUE(lost->empty());
  EXPECT_EQ(waits, 0);
}

}  // namespace
}  // namespace merlin::run
