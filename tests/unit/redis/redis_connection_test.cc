// RedisConnection: errors that name the server, AUTH, SELECT, reconnecting after a restart.
#include "adapters/broker/redis/redis_connection.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "adapters/broker/redis/redis_purge.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {

int unused_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(RedisConnection, RefusedConnectionNamesTheServer) {
  RedisSettings s;
  s.port = unused_port();
  auto c = RedisConnection::open(s);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message,
            "redis 127.0.0.1:" + std::to_string(s.port) + ": connection refused");
  EXPECT_EQ(c.error().code, ErrorCode::kUnavailable);
  EXPECT_TRUE(c.error().retryable);
}

using RedisConnectionTest = RedisFixture;

TEST_F(RedisConnectionTest, ErrorRepliesCarryTheServerText) {
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = (*c)->command({"NOSUCHCOMMAND"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("redis 127.0.0.1:"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("unknown command"), std::string::npos) << r.error().message;
}

TEST_F(RedisConnectionTest, AuthenticatesAndSelectsTheDatabase) {
  auto admin = RedisConnection::open(settings_);
  ASSERT_TRUE(admin.ok());
  ASSERT_TRUE((*admin)->command({"CONFIG", "SET", "requirepass", "s3cret"}).ok());

  auto anonymous = RedisConnection::open(settings_);
  ASSERT_TRUE(anonymous.ok());
  auto denied = (*anonymous)->command({"SET", "k", "v"});
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.error().message.find("NOAUTH"), std::string::npos);

  auto wrong = settings_;
  wrong.password = "nope";
  EXPECT_FALSE(RedisConnection::open(wrong).ok());

  auto s = settings_;
  s.password = "s3cret";
  s.db = 3;
  auto c = RedisConnection::open(s);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE((*c)->command({"SET", "k", "v"}).ok());
  auto size3 = (*c)->command({"DBSIZE"});
  ASSERT_TRUE((*c)->command({"SELECT", "0"}).ok());
  auto size0 = (*c)->command({"DBSIZE"});
  EXPECT_EQ(size3->integer, 1);
  EXPECT_EQ(size0->integer, 0);
}

TEST_F(RedisConnectionTest, ReconnectsAfterTheServerRestarts) {
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*c)->command({"SET", "k", "v"}).ok());
  ASSERT_EQ(server_.restart(), "");
  auto r = (*c)->command({"GET", "k"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->text(), "v") << "AOF kept the write";
}

TEST_F(RedisConnectionTest, GivesUpAfterTheReconnectBudgetWithTheAddress) {
  settings_.reconnect_budget = std::chrono::milliseconds(300);
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  server_.stop();
  auto start = std::chrono::steady_clock::now();
  auto r = (*c)->command({"PING"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "redis " + settings_.address() + ": connection refused");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

// Our sockets, and whether each is close-on-exec (from /proc/self/fdinfo's octal flags).
std::map<int, bool> sockets_cloexec() {
  std::map<int, bool> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink(e.path(), ec).string();
    if (ec || target.rfind("socket:", 0) != 0) continue;
    int fd = std::stoi(e.path().filename().string());
    std::ifstream info("/proc/self/fdinfo/" + std::to_string(fd));
    std::string key, value;
    while (info >> key >> value)
      if (key == "flags:") out[fd] = (std::stoul(value, nullptr, 8) & O_CLOEXEC) != 0;
  }
  return out;
}

TEST_F(RedisConnectionTest, SocketIsCloseOnExecAlsoAfterAReconnect) {
  auto before = sockets_cloexec();
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(server_.restart(), "");
  ASSERT_TRUE((*c)->command({"PING"}).ok());  // on a new socket
  int ours = 0;
  for (const auto& [fd, cloexec] : sockets_cloexec()) {
    if (before.count(fd)) continue;
    ++ours;
    EXPECT_TRUE(cloexec) << "socket fd " << fd << " would be inherited by every step";
  }
  EXPECT_EQ(ours, 1);
}

TEST_F(RedisConnectionTest, TransactionAppliesAllOrReportsTheQueueingError) {
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  auto bad = (*c)->transaction({{"SET", "a", "1"}, {"SET", "b"}});  // wrong arity: EXECABORT
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE((*c)->command({"GET", "a"})->is_nil()) << "nothing applied";
  auto good = (*c)->transaction({{"SET", "a", "1"}, {"INCR", "a"}});
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ((*good)[1].integer, 2);
}

TEST_F(RedisConnectionTest, PurgeDropsOneStudyAndLeavesTheOthers) {
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*c)->command({"SET", "merlin:a*:x", "1"}).ok());
  ASSERT_TRUE((*c)->command({"SET", "merlin:a*:y", "1"}).ok());
  ASSERT_TRUE((*c)->command({"SET", "merlin:ab:x", "1"}).ok());
  ASSERT_TRUE((*c)->command({"SET", "unrelated", "1"}).ok());
  auto s = settings_;
  s.study_key = "a*";  // glob characters in a study key match literally
  auto n = purge_study(s);
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(*n, 2u);
  EXPECT_EQ((*c)->command({"DBSIZE"})->integer, 2);
}

}  // namespace
}  // namespace merlin::testing
