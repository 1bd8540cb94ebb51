#include "merlin/cli/config_help.h"

#include <vector>

namespace merlin::cli {
namespace {

// The title of the first provider that keeps progress itself: where a broker that needs a
// results backend keeps it.
std::string results_title(const BrokerProviders& providers) {
  for (const auto* p : providers.all())
    if (!p->needs_results_backend) return p->title;
  return "";
}

std::vector<const BrokerProvider*> with_template(const BrokerProviders& providers) {
  std::vector<const BrokerProvider*> out;
  for (const auto* p : providers.all())
    if (!p->config_name.empty()) out.push_back(p);
  return out;
}

}  // namespace

std::string config_broker_help(const BrokerProviders& providers) {
  const auto listed = with_template(providers);
  std::string out;
  for (std::size_t i = 0; i < listed.size(); ++i) {
    if (i > 0) out += i + 1 == listed.size() ? ", or " : ", ";
    out += listed[i]->config_name;
    if (listed[i]->needs_results_backend)
      out += " (with a " + results_title(providers) + " as the results backend)";
  }
  return out;
}

std::string config_create_help(const BrokerProviders& providers) {
  const auto listed = with_template(providers);
  std::string brokers;
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const BrokerProvider& p = *listed[i];
    std::string one = p.title;
    if (p.needs_results_backend) one += " and a " + results_title(providers) + " results backend";
    if (i == 0)
      brokers = one + " broker";
    else
      brokers += (i == 1 ? " (or " : ", or ") + one;
  }
  if (listed.size() > 1) brokers += ")";
  return "Write ~/.merlin/app.yaml (or -o FILE) for a " + brokers +
         " on this machine, mode 0600; an existing file is kept unless --force. Records the "
         "file in ~/.merlin/config_path.txt, as Merlin does";
}

}  // namespace merlin::cli
