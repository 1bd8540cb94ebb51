#include "merlin/run/status_source.h"

#include <chrono>

#include "adapters/broker/local/local_state_store.h"
#include "merlin/core/workspace/journal.h"
#include "merlin/core/workspace/task_journals.h"

namespace merlin::run {
namespace {

// Whether `backend` has a record of study `key`: a broker that never saw it (or lost it)
// reports no instances.
Result<bool> knows_study(Backend& backend, const std::string& key) {
  auto p = backend.store(key)->progress();
  if (!p) return p.error();
  return !p->empty();
}

// The recorded broker as a location merlin can connect to with what run.env keeps, or why not.
Result<BrokerLocation> recorded_location(const std::string& recorded,
                                         const BrokerLocation& configured,
                                         const BrokerProviders& providers) {
  auto loc = parse_broker_url(recorded, providers);
  if (!loc) return Error::runtime("cannot be read back from run.env");
  // run.env keeps the URL masked ("redis://:***@host:port/db"): the password is not there.
  if (!loc->password.empty())
    return Error::runtime("needs a password, which run.env does not keep");
  if (loc->needs_results_backend())
    return Error::runtime("is a " + loc->provider->title +
                          " broker, whose results backend run.env does not record");
  loc->source = {LocationSource::kRunRecord, "run.env"};
  loc->retry_budget = std::chrono::milliseconds(0);  // asked once: a status must not wait
  loc->reply_timeout = configured.reply_timeout;
  return *loc;
}

// The server of a masked URL, without the user and password ("redis://u:***@h:1/0" ->
// "redis://h:1/0"): one server reached as another ACL user is still the study's broker.
std::string server_of(const std::string& url) {
  const auto start = url.find("://");
  const auto at = url.rfind('@');
  if (start == std::string::npos || at == std::string::npos || at < start) return url;
  return url.substr(0, start + 3) + url.substr(at + 1);
}

}  // namespace

Result<StatusSource> open_status_source(const std::string& workspace, const RunRecord& record,
                                        const BrokerLocation& configured,
                                        const BrokerProviders& providers,
                                        const BackendOpener& open) {
  const std::string key = study_key_of(workspace);
  const std::string now = configured.display();
  const std::string& was = record.broker_at;
  StatusSource out;
  if (was.empty() || server_of(was) == server_of(now)) {
    auto b = open(configured);
    if (!b) return b.error();
    auto known = knows_study(**b, key);
    if (!known) return known.error();
    if (*known) {
      out.backend = std::move(*b);
      out.loc = configured;
      return out;
    }
    if (record.finished) {
      out.note = "study " + key + " finished, and the broker at " + now +
                 " no longer has a record of it: the status comes from the workspace's task "
                 "journals";
      return out;
    }
    return Error::runtime("study " + key + " is not in the broker at " + now +
                          " (another server, or the broker lost it); `merlin restart " + workspace +
                          "` queues its unfinished tasks there again");
  }

  // The study was queued on another broker than the one configured now.
  std::string why;
  auto loc = recorded_location(was, configured, providers);
  if (!loc) {
    why = loc.error().message;
  } else if (auto b = open(*loc); !b) {
    why = "cannot be opened: " + b.error().message;
  } else if (auto known = knows_study(**b, key); !known) {
    why = "cannot be reached: " + known.error().message;
  } else if (!*known) {
    why = "has no record of it";
  } else {
    out.backend = std::move(*b);
    out.loc = *loc;
    out.note = "study " + key + " was queued on " + was + ", not on " + now +
               " (the broker configured now): its status is read from " + was;
    return out;
  }
  if (record.finished) {
    out.note = "study " + key + " finished on " + was + " (run.env), not on " + now +
               " (the broker configured now): the status comes from the workspace's task "
               "journals";
    return out;
  }
  return Error::runtime("study " + key + " was queued on " + was + ", but the broker configured " +
                        "now is " + now + ", and " + was + " " + why +
                        "; point merlin at the study's broker with --broker URL (or "
                        "MERLIN_BROKER_URL, or app.yaml), or start it again");
}

Result<std::vector<InstanceProgress>> task_journals_progress(const PreparedStudy& s) {
  LocalStateStore store(s.graph->start_counts());
  auto journals = study_journals(s.tokens.info_dir);
  if (!journals) return journals.error();
  const auto instances = static_cast<std::uint32_t>(s.graph->instances().size());
  for (const auto& path : *journals) {
    auto n = read_journal(
        path, instances,
        [&](const JournalRecord& r) { store.restore(r.instance, r.sample, r.outcome, r.seconds); },
        false, [&](InstanceId i, std::uint64_t count) { store.restore_count(i, count); });
    if (!n) return n.error();
  }
  return store.progress();
}

}  // namespace merlin::run
