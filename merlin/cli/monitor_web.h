#pragma once
/// `merlin monitor --web`: the study's status page (docs/web-status.md). A session owns the
/// watched study (StudyWatch), a thread that refreshes it every few seconds, and the HTTP
/// server answering from the latest snapshot, so viewers never reach the broker themselves.
#include <memory>
#include <string>

#include "merlin/cli/broker_config.h"
#include "merlin/core/util/result.h"

namespace CLI {
class App;
}

namespace merlin::cli {

struct WebFlags {
  bool on = false;                 ///< --web
  int port = 8765;                 ///< --port; 0: a free port, printed
  std::string bind = "127.0.0.1";  ///< --bind
  std::string token;               ///< --token (or MERLIN_MONITOR_TOKEN); "auto": generated
  double refresh_seconds = 3;      ///< --refresh
  bool keep_serving = false;       ///< --keep-serving: after the monitor's verdict too
};

void add_web_flags(CLI::App& sub, WebFlags& flags);

class WebSession {
 public:
  /// Opens the study `target` names (a workspace, or a spec: its newest workspace, under
  /// `output_path` when given) and its broker when it was queued in one, and takes the first
  /// snapshot. Errors: kBadInput for a bad target or flags, the broker's otherwise.
  static Result<std::unique_ptr<WebSession>> open(const std::string& target,
                                                  const std::string& output_path,
                                                  const BrokerFlags& broker, const WebFlags& flags);
  ~WebSession();

  /// Starts serving and refreshing; returns the URL to open (with the token when there is
  /// one). kUnavailable naming the address when it cannot be bound.
  Result<std::string> serve();

  /// Whether the study is queued in a broker (else a local run, read from its journal).
  bool distributed() const;

 private:
  struct State;
  explicit WebSession(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace merlin::cli
