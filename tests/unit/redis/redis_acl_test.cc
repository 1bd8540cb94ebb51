// Redis ACL users (docs/security.md): a worker's user reaching one study's keys finds its
// studies without reading another's, and a refused login names the user, never the password.
#include "adapters/broker/redis/redis_connection.h"
#include "adapters/broker/redis/redis_studies.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {

class RedisAcl : public RedisFixture {
 protected:
  void enqueue(const std::string& key, const std::string& name) {
    RedisStudies studies(settings_);
    StudyEnqueue st;
    st.record = {key, "/ws/" + key, name, 1};
    st.counts = {1};
    st.queues = {"q"};
    ASSERT_TRUE(studies.enqueue(st).ok());
  }
  // A user who reads the study list and the keys of the studies named "mine" only.
  RedisSettings mine_only() {
    auto c = RedisConnection::open(settings_);
    EXPECT_TRUE(c.ok());
    auto r = (*c)->command({"ACL", "SETUSER", "w", "on", ">pw-of-w", "resetkeys", "~merlin:mine_*",
                            "%R~merlin:studies", "+@all"});
    EXPECT_TRUE(r.ok()) << r.error().message;
    auto s = settings_;
    s.username = "w";
    s.password = "pw-of-w";
    return s;
  }
};

TEST_F(RedisAcl, StudiesOfANameAreFoundWithoutReadingOtherStudies) {
  enqueue("other_20260101-000000", "other");
  enqueue("mine_20260101-000000", "mine");
  enqueue("mine2_20260101-000000", "mine2");  // another name that starts the same
  RedisStudies studies(mine_only());
  auto named = studies.list_named("mine");
  ASSERT_TRUE(named.ok()) << named.error().message;
  ASSERT_EQ(named->size(), 1u);
  EXPECT_EQ((*named)[0].key, "mine_20260101-000000");
  EXPECT_EQ((*named)[0].workspace, "/ws/mine_20260101-000000");
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  auto log = (*c)->command({"ACL", "LOG"});
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE(log->elements.empty()) << "no key of another study was asked for";
}

TEST_F(RedisAcl, ARefusedLoginNamesTheUserNotThePassword) {
  auto s = mine_only();
  s.password = "wrong-pw-of-w";
  s.retry_first_connect = true;  // a refusal is not worth retrying, unlike a server down
  auto c = RedisConnection::open(s);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kRuntime);
  EXPECT_NE(c.error().message.find("WRONGPASS"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("(user 'w')"), std::string::npos) << c.error().message;
  EXPECT_EQ(c.error().message.find("pw-of-w"), std::string::npos) << c.error().message;
  EXPECT_EQ(c.error().message.find("gave up after retrying"), std::string::npos);
}

}  // namespace
}  // namespace merlin::testing
