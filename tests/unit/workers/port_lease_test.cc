// A task's MASTER_PORT: free when taken, never the same for two leases held at once, and only
// from a private lock directory.
#include "workers/port_lease.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <vector>

namespace fs = std::filesystem;

namespace merlin {
namespace {

class PortLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/merlin_port_lease.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::string locks() const { return (root_ / "ports").string(); }
  fs::path root_;
};

bool can_bind(int port) {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  a.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

TEST_F(PortLeaseTest, LeasesHeldTogetherNeverShareAPortNorALockFile) {
  std::vector<PortLease> held;
  std::set<int> ports, buckets;
  for (int i = 0; i < 64; ++i) {
    auto l = PortLease::take(locks());
    ASSERT_TRUE(l) << l.error().message;
    EXPECT_TRUE(can_bind(l->port())) << "port " << l->port() << " is free for rank 0";
    ports.insert(l->port());
    buckets.insert(l->port() % 1024);
    held.push_back(std::move(*l));
  }
  EXPECT_EQ(ports.size(), 64u);
  EXPECT_EQ(buckets.size(), 64u) << "a held lock file is never handed out twice";
  struct stat st {};
  ASSERT_EQ(::stat(locks().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(PortLeaseTest, TheLockIsHeldWhileTheLeaseLivesAndFreeAfter) {
  auto lease = PortLease::take(locks());
  ASSERT_TRUE(lease) << lease.error().message;
  const std::string file = locks() + "/" + std::to_string(lease->port() % 1024);
  int fd = ::open(file.c_str(), O_RDWR);
  ASSERT_GE(fd, 0) << file;
  EXPECT_NE(::flock(fd, LOCK_EX | LOCK_NB), 0) << "another worker cannot take it";
  { PortLease gone = std::move(*lease); }
  EXPECT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0) << "released with the lease";
  ::close(fd);
}

TEST_F(PortLeaseTest, RefusesALockDirectoryThatIsNotPrivate) {
  fs::create_directories(root_ / "open");
  fs::permissions(root_ / "open", fs::perms(0777));
  auto open = PortLease::take((root_ / "open").string());
  ASSERT_FALSE(open);
  EXPECT_NE(open.error().message.find("not a private directory"), std::string::npos)
      << open.error().message;
  fs::create_directories(root_ / "real");
  fs::permissions(root_ / "real", fs::perms(0700));
  fs::create_directory_symlink(root_ / "real", root_ / "link");
  auto link = PortLease::take((root_ / "link").string());
  ASSERT_FALSE(link);
  EXPECT_NE(link.error().message.find((root_ / "link").string()), std::string::npos);
}

}  // namespace
}  // namespace merlin
