// Redis errors are told apart by their code, read once where a reply is parsed: the first word
// of an error reply (redis_error.h). The retries and fallbacks that hang on a code (LOADING
// waits, NOSCRIPT sends the script whole, NOGROUP is a purged queue, EXISTS a study queued
// already) are checked here on the code, never on the text.
#include "adapters/broker/redis/redis_error.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "adapters/broker/redis/redis_connection.h"
#include "adapters/broker/redis/redis_script.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {

TEST(RedisErrorCode, IsTheFirstWordOfTheErrorReply) {
  EXPECT_EQ(redis_error_code_of("LOADING Redis is loading the dataset in memory"),
            RedisErrorCode::kLoading);
  EXPECT_EQ(redis_error_code_of("NOSCRIPT No matching script. Please use EVAL."),
            RedisErrorCode::kNoScript);
  EXPECT_EQ(redis_error_code_of("NOGROUP No such key 'q' or consumer group 'g'"),
            RedisErrorCode::kNoGroup);
  EXPECT_EQ(redis_error_code_of("EXISTS study s_1 is queued already"), RedisErrorCode::kExists);
  EXPECT_EQ(redis_error_code_of("LOADING"), RedisErrorCode::kLoading) << "a code alone";
}

TEST(RedisErrorCode, AWordLaterInTheTextIsNotTheCode) {
  EXPECT_EQ(redis_error_code_of("ERR Error running script: NOGROUP"), RedisErrorCode::kOther);
  EXPECT_EQ(redis_error_code_of("merlin: study s_1 is queued already"), RedisErrorCode::kOther);
  EXPECT_EQ(redis_error_code_of("ERR unknown command 'LOADING'"), RedisErrorCode::kOther);
  EXPECT_EQ(redis_error_code_of("LOADINGX nothing"), RedisErrorCode::kOther) << "whole word";
  EXPECT_EQ(redis_error_code_of("loading lower case"), RedisErrorCode::kOther);
  EXPECT_EQ(redis_error_code_of(""), RedisErrorCode::kOther);
}

TEST(RedisErrorCode, TravelsBesideTheErrorOfARedisResult) {
  RedisResult<int> failed(Error::runtime("redis h:1: NOGROUP gone"), RedisErrorCode::kNoGroup);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::kRuntime);
  EXPECT_EQ(failed.redis_code(), RedisErrorCode::kNoGroup);
  RedisResult<int> value(3);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 3);
  EXPECT_EQ(value.redis_code(), RedisErrorCode::kNone);
  RedisResult<int> plain = Result<int>(Error::runtime("NOGROUP in the text only"));
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.redis_code(), RedisErrorCode::kNone) << "the text is never read for a code";
}

// A loopback server that answers the commands of its one connection in turn from `answers`
// (raw RESP), then "+PONG" to any more; counts the commands it read.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<std::string> answers) : answers_(std::move(answers)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 4);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      // One read per command: the client waits for each reply before it sends again.
      while (::read(c, buf, sizeof buf) > 0) {
        const std::size_t n = commands_++;
        const std::string reply = n < answers_.size() ? answers_[n] : "+PONG\r\n";
        if (::write(c, reply.data(), reply.size()) < 0) break;
      }
      ::close(c);
    });
  }
  ~ScriptedServer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  int commands() const { return commands_; }

 private:
  std::vector<std::string> answers_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> commands_{0};
  std::thread thread_;
};

RedisSettings settings_for(const ScriptedServer& s, std::chrono::milliseconds budget) {
  RedisSettings r;
  r.port = s.port();
  r.reconnect_budget = budget;
  return r;
}

const std::string kLoadingReply = "-LOADING Redis is loading the dataset in memory\r\n";

TEST(RedisLoading, ACommandAnsweredLoadingIsSentAgainUntilTheServerHasLoaded) {
  ScriptedServer server({kLoadingReply, kLoadingReply});
  auto c = RedisConnection::open(settings_for(server, std::chrono::seconds(10)));
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = (*c)->command({"PING"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->text(), "PONG");
  EXPECT_EQ(server.commands(), 3);
}

TEST(RedisLoading, AServerStillLoadingAfterTheBudgetFailsWithTheLoadingCode) {
  ScriptedServer server(std::vector<std::string>(100, kLoadingReply));
  auto c = RedisConnection::open(settings_for(server, std::chrono::milliseconds(200)));
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = (*c)->command({"PING"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_EQ(r.redis_code(), RedisErrorCode::kLoading);
  EXPECT_GT(server.commands(), 1) << "sent again while the budget lasted";
}

TEST(RedisLoading, AnotherErrorNamingLoadingIsNotRetried) {
  ScriptedServer server({"-ERR unknown command 'LOADING'\r\n"});
  auto c = RedisConnection::open(settings_for(server, std::chrono::seconds(10)));
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = (*c)->command({"LOADING"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.redis_code(), RedisErrorCode::kOther);
  EXPECT_EQ(server.commands(), 1);
}

using RedisErrorReplies = RedisFixture;

TEST_F(RedisErrorReplies, AReadFromAQueueWithoutItsGroupFailsWithNoGroup) {
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = (*c)->command({"XREADGROUP", "GROUP", "g", "c", "STREAMS", "nosuch", ">"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_EQ(r.redis_code(), RedisErrorCode::kNoGroup);
  auto replies = (*c)->pipeline({{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "nosuch", ">"}});
  ASSERT_TRUE(replies.ok()) << "a pipeline keeps error replies in its values";
  ASSERT_TRUE(replies->at(0).is_error());
  EXPECT_EQ(replies->at(0).error_code, RedisErrorCode::kNoGroup);
}

TEST_F(RedisErrorReplies, AnUnknownCommandIsAnotherError) {
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = (*c)->command({"NOSUCHCOMMAND"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.redis_code(), RedisErrorCode::kOther);
}

TEST_F(RedisErrorReplies, AScriptRunsAgainAfterTheServerFlushedItsScriptCache) {
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok()) << c.error().message;
  RedisScript script("return 7");
  auto first = script.run(**c, {}, {});
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE((*c)->command({"SCRIPT", "FLUSH"}).ok());
  auto evalsha = (*c)->command({"EVALSHA", "0000000000000000000000000000000000000000", "0"});
  ASSERT_FALSE(evalsha.ok());
  EXPECT_EQ(evalsha.redis_code(), RedisErrorCode::kNoScript);
  auto again = script.run(**c, {}, {});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->as_integer(), 7);
}

TEST_F(RedisErrorReplies, AScriptChoosesItsOwnCodeWord) {
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = (*c)->command({"EVAL", "return redis.error_reply('EXISTS study s is there')", "0"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.redis_code(), RedisErrorCode::kExists);
}

}  // namespace
}  // namespace merlin::testing
