// The web server's limits as bookkeeping (HttpLimits): which connection a newcomer evicts at
// the cap, when a request head is late, when a head is whole; times given, no clock.
#include "adapters/web/connection_table.h"

#include <gtest/gtest.h>

namespace merlin::web {
namespace {

HttpLimits limits(std::size_t max_connections, std::int64_t head_timeout_ms = 5000) {
  HttpLimits l;
  l.max_connections = max_connections;
  l.head_timeout_ms = head_timeout_ms;
  return l;
}

TEST(ConnectionTable, BelowTheCapEveryConnectionIsAdmitted) {
  ConnectionTable t(limits(3));
  for (int fd : {10, 11, 12}) {
    auto a = t.admit(fd, 0);
    EXPECT_TRUE(a.admitted);
    EXPECT_FALSE(a.evicted);
  }
  EXPECT_EQ(t.size(), 3u);
}

TEST(ConnectionTable, AtTheCapTheConnectionWaitingLongestForItsHeadMakesRoom) {
  ConnectionTable t(limits(3));
  t.admit(12, 100);
  t.admit(10, 200);
  t.admit(11, 300);
  auto a = t.admit(13, 400);
  EXPECT_TRUE(a.admitted);
  ASSERT_TRUE(a.evicted);
  EXPECT_EQ(*a.evicted, 12) << "the oldest, not the lowest descriptor";
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.waiting(), (std::vector<ConnectionId>{10, 11, 13}));
}

TEST(ConnectionTable, AConnectionBeingAnsweredIsNeverEvicted) {
  ConnectionTable t(limits(2));
  t.admit(10, 0);
  t.admit(11, 1);
  t.answering(10);
  auto a = t.admit(12, 2);
  ASSERT_TRUE(a.evicted);
  EXPECT_EQ(*a.evicted, 11);
}

TEST(ConnectionTable, WhenEverySlotIsBeingAnsweredTheNewcomerIsRefused) {
  ConnectionTable t(limits(2));
  t.admit(10, 0);
  t.admit(11, 0);
  t.answering(10);
  t.answering(11);
  auto a = t.admit(12, 1);
  EXPECT_FALSE(a.admitted);
  EXPECT_FALSE(a.evicted);
  EXPECT_EQ(t.size(), 2u);
  t.release(10);
  EXPECT_TRUE(t.admit(12, 2).admitted) << "a released slot is free again";
}

TEST(ConnectionTable, AHeadIsLateAtItsDeadlineCountedFromTheConnectionNotFromItsLastByte) {
  ConnectionTable t(limits(8, 5000));
  t.admit(10, 1000);
  t.admit(11, 3000);
  EXPECT_EQ(t.next_deadline(), 6000);
  EXPECT_TRUE(t.expired(5999).empty());
  EXPECT_EQ(t.expired(6000), (std::vector<ConnectionId>{10}));
  EXPECT_EQ(t.expired(8000), (std::vector<ConnectionId>{10, 11}));
}

TEST(ConnectionTable, ConnectionsBeingAnsweredHaveNoHeadDeadline) {
  ConnectionTable t(limits(8, 5000));
  t.admit(10, 0);
  t.answering(10);
  EXPECT_TRUE(t.expired(100000).empty());
  EXPECT_FALSE(t.next_deadline());
}

TEST(ScanHead, WholeOnlyAtTheEmptyLine) {
  EXPECT_EQ(scan_head("", 100), HeadState::kIncomplete);
  EXPECT_EQ(scan_head("GET / HTTP/1.1\r\nHost: x\r\n", 100), HeadState::kIncomplete);
  EXPECT_EQ(scan_head("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 100), HeadState::kComplete);
  EXPECT_EQ(scan_head("GET / HTTP/1.0\n\n", 100), HeadState::kComplete);
}

TEST(ScanHead, TooLargeOnceMoreThanTheCapArrivedWithoutTheEmptyLine) {
  const std::string big = "GET / HTTP/1.1\r\nX: " + std::string(200, 'a');
  EXPECT_EQ(scan_head(big, 100), HeadState::kTooLarge);
  EXPECT_EQ(scan_head(big.substr(0, 100), 100), HeadState::kIncomplete);
  EXPECT_EQ(scan_head(big + "\r\n\r\n", 100), HeadState::kTooLarge) << "the end came too late";
}

}  // namespace
}  // namespace merlin::web
