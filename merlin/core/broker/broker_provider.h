#pragma once
/// One kind of broker as the rest of merlin sees it: the URL schemes and app.yaml names it
/// answers to, what its URLs mean, whether it needs a results backend, and how its Backend is
/// opened. Each adapter folder declares its own (adapters/broker/<kind>/<kind>_provider.h);
/// the CLI lists them once (merlin/cli/backends.cc). Generic code asks the list
/// (BrokerProviders) and never compares scheme text.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "merlin/core/broker/backend.h"
#include "merlin/core/broker/broker_kind.h"
#include "merlin/core/broker/broker_location.h"
#include "merlin/core/util/result.h"

namespace merlin {

/// One URL scheme of a broker, as data the generic URL parser follows.
struct UrlForm {
  std::string scheme;  ///< lower case, as written: "rediss"
  /// What the location keeps as its scheme ("pyamqp" is "amqp"); "" = `scheme`.
  std::string canonical;
  int default_port = 0;
  bool tls = false;
  UrlPath path = UrlPath::kDatabase;  ///< what the URL's path names
};

/// A value of app.yaml's `name:` and the URL scheme it stands for.
struct AppName {
  std::string name;    ///< "rabbitmq"
  std::string scheme;  ///< "amqps"
  bool listed = true;  ///< named in messages (false for aliases such as "unix")
};

struct BackendOptions {
  /// Keep retrying the first connection within the retry budget (workers started before
  /// their server); otherwise a server that is not there fails at once.
  bool wait_for_server = false;
  /// A worker whose heartbeat is this old is dead: its tasks go back at once (run-workers
  /// --dead-after); unset: the adapter's default.
  std::optional<std::chrono::milliseconds> dead_after;
};

class BrokerProviders;

struct BrokerProvider {
  BrokerKind kind{""};
  std::string title;  ///< "RabbitMQ", for messages
  /// The URL forms; the first is the provider's default (and the first provider's first form
  /// is where a command goes when no broker is named).
  std::vector<UrlForm> forms;
  std::vector<AppName> app_names;
  /// Keeps progress, registries and stops on another broker (Merlin's `results_backend`).
  bool needs_results_backend = false;
  /// The URL's shape for messages and --help: "redis://[[user]:password@]host[:port][/db]".
  std::string url_help;
  /// Its part of --broker's help ("redis://... (also [::1] hosts, ...)").
  std::string flag_help;
  /// `merlin config create --broker <config_name>` writes `app_yaml` and says `created_note`
  /// (a printf format with one %s, the file).
  std::string config_name;
  std::string app_yaml;
  std::string created_note;
  /// `merlin config update-broker|update-backend -t <config_name>`: the `name:` Merlin 1.13
  /// writes for this server ("rediss" for Redis, "rabbitmq") and the keys its flags may set,
  /// in Merlin's order (`password` from --pf). Without `username`, Merlin writes it empty.
  std::string update_name;
  std::vector<std::string> update_keys;
  /// The Backend of `loc` (a location of this provider); `all` opens another location (a
  /// results backend). Connects lazily. Unset in a parse-only description.
  std::function<Result<std::unique_ptr<Backend>>(
      const BrokerLocation& loc, const BackendOptions& options, const BrokerProviders& all)>
      open;
};

/// The providers of this build, in the order of the table that lists them. Immutable; the
/// providers it points at outlive it.
class BrokerProviders {
 public:
  explicit BrokerProviders(std::vector<const BrokerProvider*> providers);

  const std::vector<const BrokerProvider*>& all() const { return providers_; }
  /// The provider and form of a URL scheme (lower case); nullopt when none serves it.
  struct Found {
    const BrokerProvider* provider;
    const UrlForm* form;
  };
  std::optional<Found> by_scheme(std::string_view scheme) const;
  /// The provider and form app.yaml's `name:` means; "" is the default provider's first form.
  std::optional<Found> by_app_name(std::string_view name) const;
  /// Where a command goes when no broker is named: the first provider's first form at
  /// 127.0.0.1, its source kDefault.
  BrokerLocation default_location() const;
  /// "redis, rediss, redis+socket" (`results`: only providers that can hold a study's
  /// progress themselves).
  std::string app_names_text(bool results_only) const;
  /// Every URL scheme served ("redis", "rediss", ...).
  std::vector<std::string> schemes() const;
  /// The providers' flag_help joined by ", or ".
  std::string flag_help() const;
  /// The provider `merlin config create --broker <name>` means; null for none.
  const BrokerProvider* by_config_name(std::string_view name) const;
  /// The Backend of `loc` through its provider; kRuntime for a location no provider opens.
  Result<std::unique_ptr<Backend>> open(const BrokerLocation& loc,
                                        const BackendOptions& options = {}) const;

 private:
  std::vector<const BrokerProvider*> providers_;
};

/// Fills `loc`'s form-given fields (scheme, default port, TLS, path, provider) from `found`.
void apply_form(BrokerLocation& loc, const BrokerProviders::Found& found);

}  // namespace merlin
