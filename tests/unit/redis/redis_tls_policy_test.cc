// Redis over TLS without a server: what ssl_cert_reqs turns on, how names are matched, the
// refusals' text, and TlsStream's refusals that need no TLS server (this side's files, a peer
// that is no TLS server). The handshakes with a real redis-server are
// tests/integration/redis_tls.sh.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "adapters/broker/redis/redis_connection.h"
#include "adapters/broker/redis/redis_tls_policy.h"
#include "adapters/broker/redis/tls_stream.h"

namespace merlin::testing {
namespace {

TEST(RedisTlsPolicy, VerificationIsOnUnlessCertReqsIsNone) {
  EXPECT_EQ(tls_verify_mode(CertReqs::kUnset), TlsVerify::kChainAndName);
  EXPECT_EQ(tls_verify_mode(CertReqs::kRequired), TlsVerify::kChainAndName);
  EXPECT_EQ(tls_verify_mode(CertReqs::kOptional), TlsVerify::kChainAndName);
  EXPECT_EQ(tls_verify_mode(CertReqs::kNone), TlsVerify::kOff);
}

TEST(RedisTlsPolicy, IpLiteralsAreMatchedAsAddresses) {
  EXPECT_TRUE(is_ip_literal("127.0.0.1"));
  EXPECT_TRUE(is_ip_literal("::1"));
  EXPECT_TRUE(is_ip_literal("fe80::1"));
  EXPECT_FALSE(is_ip_literal("localhost"));
  EXPECT_FALSE(is_ip_literal("redis.example.org"));
  EXPECT_FALSE(is_ip_literal("127.0.0"));
  EXPECT_FALSE(is_ip_literal(""));
}

TEST(RedisTlsPolicy, ANameMismatchSaysWhoTheCertificateIsFor) {
  TlsVerifyFailure f;
  f.kind = TlsVerifyFailure::Kind::kNameMismatch;
  f.names = {"localhost", "127.0.0.1"};
  EXPECT_EQ(tls_verify_failure_text(f, "127.0.0.2", "/x/ca.crt"),
            "certificate verify failed: the server's certificate is for \"localhost\", "
            "127.0.0.1, not \"127.0.0.2\"");
}

TEST(RedisTlsPolicy, AnUntrustedIssuerNamesTheStoreLookedIn) {
  TlsVerifyFailure f;
  f.kind = TlsVerifyFailure::Kind::kUntrustedIssuer;
  f.issuer = "CN=Other CA";
  EXPECT_EQ(tls_verify_failure_text(f, "localhost", "/x/ca.crt"),
            "certificate verify failed: the server's certificate (issued by CN=Other CA) is not "
            "signed by a CA in /x/ca.crt (ssl_ca_certs)");
  f.issuer.clear();
  EXPECT_EQ(tls_verify_failure_text(f, "localhost", ""),
            "certificate verify failed: the server's certificate is not signed by a CA in the "
            "system's trusted CAs (name the server's CA file with ssl_ca_certs)");
}

TEST(RedisTlsPolicy, OtherFailuresKeepOpenSslsText) {
  TlsVerifyFailure f;
  f.kind = TlsVerifyFailure::Kind::kExpired;
  EXPECT_EQ(tls_verify_failure_text(f, "h", ""),
            "certificate verify failed: the server's certificate has expired");
  f.kind = TlsVerifyFailure::Kind::kOther;
  f.detail = "certificate revoked";
  EXPECT_EQ(tls_verify_failure_text(f, "h", ""), "certificate verify failed: certificate revoked");
}

TEST(RedisTlsPolicy, RefusalsSayWhatToDo) {
  EXPECT_EQ(tls_refusal_text(TlsRefusal::kNotTls, "wrong version number", 0),
            "the server does not speak TLS (wrong version number): is this a plain Redis port? "
            "use redis:// for it");
  EXPECT_EQ(tls_refusal_text(TlsRefusal::kNoHandshakeReply, "", 2),
            "no TLS handshake reply within 2.0 s: is this a plain Redis port? use redis:// for it");
  EXPECT_NE(tls_refusal_text(TlsRefusal::kClientCertRequired, "", 0).find("ssl_certfile"),
            std::string::npos);
  EXPECT_EQ(tls_refusal_text(TlsRefusal::kClientCertRejected, "unknown ca", 0),
            "the server refused this client's certificate (unknown ca)");
}

TEST(RedisTlsPolicy, AKeyReadableByEveryoneIsRefused) {
  EXPECT_FALSE(key_file_problem("ssl_keyfile", "/k.pem", 0600).has_value());
  EXPECT_FALSE(key_file_problem("ssl_keyfile", "/k.pem", 0640).has_value());
  auto p = key_file_problem("ssl_keyfile", "/k.pem", 0644);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(*p, "ssl_keyfile /k.pem is readable by everyone (mode 0644); run: chmod 600 /k.pem");
}

TEST(RedisTlsPolicy, TheVerifyOffWarningNamesTheServer) {
  auto w = tls_verify_off_warning("rediss://h:6390");
  EXPECT_EQ(w.rfind("redis rediss://h:6390: ssl_cert_reqs is none", 0), 0u) << w;
  EXPECT_NE(w.find("NOT verified"), std::string::npos);
}

// A loopback listener that answers every connection as `answer` says (from a thread).
class FakePeer {
 public:
  enum class Answer { kPlainRedisError, kSilence };
  explicit FakePeer(Answer a) : answer_(a) {
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
      (void)::read(c, buf, sizeof buf);  // the ClientHello
      if (answer_ == Answer::kPlainRedisError) {
        const char reply[] = "-ERR unknown command\r\n";
        (void)::write(c, reply, sizeof reply - 1);
      }
      while (!done_) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      ::close(c);
    });
  }
  ~FakePeer() {
    done_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }

 private:
  Answer answer_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

TEST(TlsStream, APlainRedisAnswerIsNotTlsAndNotRetried) {
  FakePeer peer(FakePeer::Answer::kPlainRedisError);
  TlsClientOptions o;
  o.host = "127.0.0.1";
  o.port = peer.port();
  o.verify = TlsVerify::kOff;
  auto s = TlsStream::connect(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kRuntime);
  EXPECT_EQ(s.error().message.rfind("TLS: the server does not speak TLS (", 0), 0u)
      << s.error().message;
}

TEST(TlsStream, NoHandshakeReplyIsBoundedByTheConnectTimeout) {
  FakePeer peer(FakePeer::Answer::kSilence);
  TlsClientOptions o;
  o.host = "127.0.0.1";
  o.port = peer.port();
  o.connect_timeout = std::chrono::milliseconds(200);
  auto s = TlsStream::connect(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(s.error().message,
            "TLS: no TLS handshake reply within 0.2 s: is this a plain Redis port? use redis:// "
            "for it");
}

class TlsFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("merlin-tls-unit." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(const std::string& name, const std::string& text, mode_t mode) {
    auto p = (dir_ / name).string();
    std::ofstream(p) << text;
    ::chmod(p.c_str(), mode);
    return p;
  }
  std::filesystem::path dir_;
};

TEST_F(TlsFiles, AMissingCaFileIsBadInputBeforeAnyConnection) {
  TlsClientOptions o;
  o.host = "127.0.0.1";
  o.port = 1;  // never reached
  o.ca_certs = (dir_ / "nope.crt").string();
  auto s = TlsStream::connect(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(s.error().message,
            "TLS: cannot read " + o.ca_certs + " (ssl_ca_certs): no such file or directory");
}

TEST_F(TlsFiles, ACaFileWithNoCertificateIsBadInput) {
  TlsClientOptions o;
  o.host = "127.0.0.1";
  o.port = 1;
  o.ca_certs = file("junk.crt", "not a certificate\n", 0644);
  auto s = TlsStream::connect(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(s.error().message.rfind("TLS: " + o.ca_certs + " (ssl_ca_certs) holds no PEM", 0), 0u)
      << s.error().message;
}

TEST_F(TlsFiles, AKeyReadableByEveryoneIsRefusedBeforeAnyConnection) {
  TlsClientOptions o;
  o.host = "127.0.0.1";
  o.port = 1;
  o.verify = TlsVerify::kOff;
  o.certfile = file("client.crt", "x\n", 0644);
  o.keyfile = file("client.key", "x\n", 0644);
  auto s = TlsStream::connect(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(s.error().message, "TLS: ssl_keyfile " + o.keyfile +
                                   " is readable by everyone (mode 0644); run: chmod 600 " +
                                   o.keyfile);
}

TEST(RedisTlsConnection, ARefusedTlsConnectionNamesTheServerAndIsRetryable) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  RedisSettings s;
  s.port = ntohs(a.sin_port);
  s.tls = true;
  auto c = RedisConnection::open(s);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message,
            "redis rediss://127.0.0.1:" + std::to_string(s.port) + ": connection refused");
  EXPECT_EQ(c.error().code, ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace merlin::testing
