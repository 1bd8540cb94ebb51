#include "merlin/core/spec/ignored_key.h"

namespace merlin::spec {

std::string why_text(const IgnoredKey& k) {
  switch (k.why) {
    case IgnoredWhy::kTlsProtocol:
      return "a TLS setting merlin does not take: it uses TLS 1.2 or later";
    case IgnoredWhy::kNotAServerKey:
      return "not a key Merlin reads there";
    case IgnoredWhy::kCelerySettings:
      return "Celery's own settings, which the workers here, not being Celery, do not read";
    case IgnoredWhy::kServerSettings:
      return "`merlin server`'s settings for the Redis it starts; that command is not in this "
             "build";
    case IgnoredWhy::kNotAnAppYamlKey:
      return "not a key of Merlin's app.yaml";
    case IgnoredWhy::kUrlInPlace:
      return k.detail + " is used in their place, as Merlin does";
    case IgnoredWhy::kUrlReplacesBlock:
      return k.detail + " is used in its place";
    case IgnoredWhy::kSocketHasPath:
      return "a " + k.detail + " server is reached through its path";
    case IgnoredWhy::kSocketHasNoPort:
      return "a " + k.detail + " server has no port";
    case IgnoredWhy::kRedisDatabase:
      return "a Redis database number; RabbitMQ has vhosts";
    case IgnoredWhy::kRabbitmqVhost:
      return "RabbitMQ's virtual host; a Redis server has none (db_num picks its database)";
    case IgnoredWhy::kTlsOfPlainServer:
      return "a TLS setting, which a plain (non-TLS) server does not use";
    case IgnoredWhy::kUnknownCertReqs:
      return "'" + k.detail + "' is none of none, optional, required";
    case IgnoredWhy::kOwnProgress:
      return "a Redis broker keeps progress on its own server, so that a commit and the "
             "queueing of what it releases are one step";
  }
  return "";
}

}  // namespace merlin::spec
