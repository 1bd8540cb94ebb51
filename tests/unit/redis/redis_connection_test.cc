// RedisConnection: errors that name the server, AUTH, SELECT, reconnecting after a restart.
#include "adapters/broker/redis/redis_connection.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

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
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
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
  EXPECT_EQ(denied.error().code, ErrorCode::kRuntime);
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
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(r.error().message.rfind("redis " + settings_.address() +
                                        ": connection refused; "
                                        "gave up after retrying for 0.",
                                    0),
            0u)
      << r.error().message;
  EXPECT_NE(r.error().message.find("(the broker retry budget is 0.3 s)"), std::string::npos)
      << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST_F(RedisConnectionTest, RidesOutAServerSilentForSeveralReplyTimeouts) {
  // Each attempt waits 0.2 s for its reply; the server is silent for 1.2 s; the budget is 10 s.
  settings_.command_timeout = std::chrono::milliseconds(200);
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  Result<RedisReply> r = Error::runtime("not run");
  {
    Paused pause(server_, std::chrono::milliseconds(1200));
    r = (*c)->command({"SET", "k", "v"});
  }
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*c)->command({"GET", "k"})->text(), "v");
}

TEST_F(RedisConnectionTest, GivesUpWhenTheServerIsSilentLongerThanTheBudget) {
  settings_.command_timeout = std::chrono::milliseconds(200);
  settings_.reconnect_budget = std::chrono::milliseconds(700);
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  Paused pause(server_, std::chrono::milliseconds(2000));
  auto start = std::chrono::steady_clock::now();
  auto r = (*c)->command({"PING"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(r.error().message.rfind("redis " + settings_.address() + ": ", 0), 0u)
      << r.error().message;
  EXPECT_NE(r.error().message.find("gave up after retrying for"), std::string::npos)
      << r.error().message;
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, std::chrono::milliseconds(700));
  EXPECT_LT(took, std::chrono::milliseconds(1800)) << "the budget, not the outage, ends it";
}

TEST_F(RedisConnectionTest, RidesOutItsConnectionsKilledOverAndOver) {
  {
    auto admin = RedisConnection::open(settings_);
    ASSERT_TRUE(admin.ok());
    ASSERT_TRUE((*admin)->command({"CONFIG", "SET", "requirepass", "s3cret"}).ok());
  }
  settings_.password = "s3cret";  // every reconnect logs in again
  auto killer = RedisConnection::open(settings_);
  ASSERT_TRUE(killer.ok());
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  std::atomic<bool> done{false};
  std::atomic<long long> killed{0};
  std::thread kill_loop([&] {
    // CLIENT KILL skips the caller's own connection.
    while (!done) {
      auto k = (*killer)->command({"CLIENT", "KILL", "TYPE", "normal"});
      if (k) killed += k->integer;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  int failures = 0, sent = 0;
  std::string first_failure;
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (killed < 50 && std::chrono::steady_clock::now() < give_up) {
    auto r = (*c)->command({"SET", "k", std::to_string(++sent)});
    if (!r && failures++ == 0) first_failure = r.error().message;
  }
  done = true;
  kill_loop.join();
  EXPECT_EQ(failures, 0) << first_failure;
  EXPECT_GE(killed.load(), 50) << "the connection was killed again and again";
  EXPECT_EQ((*c)->command({"GET", "k"})->text(), std::to_string(sent));
}

TEST_F(RedisConnectionTest, FirstConnectFailsFastUnlessAskedToRetry) {
  server_.stop();
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(RedisConnection::open(settings_).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));

  settings_.retry_first_connect = true;
  std::thread restarter([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the outage
    EXPECT_EQ(server_.restart(), "");
  });
  auto c = RedisConnection::open(settings_);
  restarter.join();
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE((*c)->command({"PING"}).ok());
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
