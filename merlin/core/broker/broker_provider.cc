#include "merlin/core/broker/broker_provider.h"

#include <utility>

namespace merlin {

BrokerProviders::BrokerProviders(std::vector<const BrokerProvider*> providers)
    : providers_(std::move(providers)) {}

std::optional<BrokerProviders::Found> BrokerProviders::by_scheme(std::string_view scheme) const {
  for (const auto* p : providers_)
    for (const auto& f : p->forms)
      if (f.scheme == scheme) return Found{p, &f};
  return std::nullopt;
}

std::optional<BrokerProviders::Found> BrokerProviders::by_app_name(std::string_view name) const {
  if (name.empty()) {
    if (providers_.empty() || providers_.front()->forms.empty()) return std::nullopt;
    return Found{providers_.front(), &providers_.front()->forms.front()};
  }
  for (const auto* p : providers_)
    for (const auto& n : p->app_names)
      if (n.name == name)
        for (const auto& f : p->forms)
          if (f.scheme == n.scheme) return Found{p, &f};
  return std::nullopt;
}

BrokerLocation BrokerProviders::default_location() const {
  BrokerLocation loc;
  if (auto found = by_app_name("")) apply_form(loc, *found);
  return loc;
}

std::string BrokerProviders::app_names_text(bool results_only) const {
  std::string out;
  for (const auto* p : providers_) {
    if (results_only && p->needs_results_backend) continue;
    for (const auto& n : p->app_names)
      if (n.listed) out += (out.empty() ? "" : ", ") + n.name;
  }
  return out;
}

std::vector<std::string> BrokerProviders::schemes() const {
  std::vector<std::string> out;
  for (const auto* p : providers_)
    for (const auto& f : p->forms)
      if (f.canonical.empty() || f.canonical == f.scheme) out.push_back(f.scheme);
  return out;
}

std::string BrokerProviders::flag_help() const {
  std::string out;
  for (const auto* p : providers_) out += (out.empty() ? "" : ", or ") + p->flag_help;
  return out;
}

const BrokerProvider* BrokerProviders::by_config_name(std::string_view name) const {
  for (const auto* p : providers_)
    if (!p->config_name.empty() && p->config_name == name) return p;
  return nullptr;
}

Result<std::unique_ptr<Backend>> BrokerProviders::open(const BrokerLocation& loc,
                                                       const BackendOptions& options) const {
  const BrokerProvider* provider = loc.provider;
  if (provider == nullptr)
    if (auto found = by_scheme(loc.scheme)) provider = found->provider;
  if (provider != nullptr && provider->open) return provider->open(loc, options, *this);
  std::string served;
  for (const auto& s : schemes()) served += (served.empty() ? "" : ", ") + s;
  return Error::runtime("no backend in this build serves " + loc.scheme + "://" + " (it serves " +
                        served + ")");
}

void apply_form(BrokerLocation& loc, const BrokerProviders::Found& found) {
  const UrlForm& f = *found.form;
  loc.scheme = f.canonical.empty() ? f.scheme : f.canonical;
  loc.port = f.default_port;
  loc.tls = f.tls;
  loc.path = f.path;
  loc.provider = found.provider;
}

}  // namespace merlin
