#include "merlin/cli/help_formatter.h"

#include <CLI/CLI.hpp>

#include "merlin/cli/completion_hints.h"

namespace merlin::cli {
namespace {

class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
    std::string names = CLI::Formatter::make_option_name(opt, is_positional);
    if (is_positional) return names;
    std::string out;
    for (char c : names) out += c == ',' ? std::string(", ") : std::string(1, c);
    return out;
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string out = CLI::Formatter::make_option_opts(opt);
    const std::string full = opt->get_type_name();
    if (full.empty() || !takes_value(*opt)) return out;
    const auto at = out.find(full);
    if (at == std::string::npos) return out;
    // completion_hint reads the option's validators through a non-const accessor only.
    auto hint = completion_hint(const_cast<CLI::Option&>(*opt));
    std::string shown = full.substr(0, full.find(':'));
    if (hint.kind == Completion::kValues) {
      shown = "{";
      for (size_t i = 0; i < hint.values.size(); ++i) shown += (i ? "," : "") + hint.values[i];
      shown += "}";
    }
    return out.replace(at, full.size(), shown);
  }
};

}  // namespace

std::shared_ptr<CLI::Formatter> help_formatter() { return std::make_shared<HelpFormatter>(); }

}  // namespace merlin::cli
