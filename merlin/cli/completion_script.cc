#include "merlin/cli/completion_script.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <sstream>

#include "merlin/cli/completion_hints.h"

namespace merlin::cli {
namespace {

bool visible(const CLI::App* sub) { return !sub->get_group().empty(); }

std::string join(const std::vector<std::string>& words, const char* sep) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? sep : "") + words[i];
  return out;
}

/// The hint as the script's kind word: none, file, dir, spec or values:a,b,c.
std::string kind_word(const CompletionHint& h) {
  std::string word = completion_kind_word(h.kind);
  return h.kind == Completion::kValues ? word + ":" + join(h.values, ",") : word;
}

/// Single-quoted for bash: names and values come from our own source, but stay safe anyway.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// The option names a user types: -j --jobs.
std::vector<std::string> option_words(const CLI::Option& opt) {
  std::vector<std::string> out;
  for (const auto& s : opt.get_snames()) out.push_back("-" + s);
  for (const auto& l : opt.get_lnames()) out.push_back("--" + l);
  return out;
}

bool is_help_or_version(const CLI::Option& opt) {
  for (const auto& l : opt.get_lnames())
    if (l == "help" || l == "help-all" || l == "version") return true;
  return false;
}

struct Tables {
  std::ostringstream children, options, values, positionals, rest;
};

void walk(CLI::App& app, const std::string& key, std::vector<std::string> inherited, Tables& t) {
  std::vector<std::string> words;
  std::vector<std::string> positional_kinds;
  std::string rest;
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    const std::string kind = kind_word(completion_hint(*opt));
    if (!opt->nonpositional()) {
      positional_kinds.push_back(kind);
      if (opt->get_items_expected_max() > 1) rest = kind;
      continue;
    }
    auto names = option_words(*opt);
    words.insert(words.end(), names.begin(), names.end());
    if (takes_value(*opt))
      for (const auto& n : names)
        t.values << "  [" << quoted(key + ":" + n) << "]=" << quoted(kind) << "\n";
  }
  std::vector<std::string> below = inherited;
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty() || !opt->nonpositional() || is_help_or_version(*opt)) continue;
    for (const auto& n : option_words(*opt)) below.push_back(n);
  }
  words.insert(words.end(), inherited.begin(), inherited.end());
  t.options << "  [" << quoted(key) << "]=" << quoted(join(words, " ")) << "\n";
  if (!positional_kinds.empty())
    t.positionals << "  [" << quoted(key) << "]=" << quoted(join(positional_kinds, " ")) << "\n";
  if (!rest.empty()) t.rest << "  [" << quoted(key) << "]=" << quoted(rest) << "\n";

  std::vector<std::string> names;
  for (CLI::App* sub : app.get_subcommands([](CLI::App* s) { return visible(s); })) {
    names.push_back(sub->get_name());
    walk(*sub, key + "/" + sub->get_name(), below, t);
  }
  if (!names.empty())
    t.children << "  [" << quoted(key) << "]=" << quoted(join(names, " ")) << "\n";
}

// The function is the same for every app; the tables above are what the CLI defines. Nodes are
// keyed by their command words joined with '/' ("merlin", "merlin/config/create": bash refuses
// an empty key).
constexpr const char* kFunctions = R"BASH(
# Completes $2 as a value of the kind $1 (none, file, dir, spec, values:a,b,...).
_merlin_offer() {
  local cur=$2 IFS=$'\n'
  case $1 in
    values:*)
      local words=${1#values:}
      IFS=$' \t\n'
      COMPREPLY=($(compgen -W "${words//,/ }" -- "$cur")) ;;
    file)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur")) ;;
    dir)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -d -- "$cur")) ;;
    spec)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.yaml' -- "$cur")
                 $(compgen -f -X '!*.yml' -- "$cur")) ;;
  esac
}

# The kind of value option $2 takes in command $1 or a command above it (CLI11 passes options
# it does not know to the command above); fails if it takes none (a flag, or unknown).
_merlin_value_kind() {
  local node=$1
  while :; do
    if [[ ${_merlin_values["$node:$2"]+set} ]]; then
      printf '%s\n' "${_merlin_values["$node:$2"]}"
      return 0
    fi
    [[ $node == */* ]] || return 1
    node=${node%/*}
  done
}

_merlin() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev= opt= node=merlin w kind i n=0
  COMPREPLY=()
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}
  # --opt=value: bash splits the '=' into a word of its own (COMP_WORDBREAKS).
  if [[ $cur == = ]]; then
    opt=$prev cur=
  elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
    opt=${COMP_WORDS[COMP_CWORD-2]}
  elif [[ $cur == --*=* ]]; then
    opt=${cur%%=*} cur=${cur#*=}
  fi
  # Which command, and how many positionals it has so far.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    if [[ $w == -* ]]; then
      if [[ $w != *=* ]] && _merlin_value_kind "$node" "$w" >/dev/null; then
        ((i++))
        [[ ${COMP_WORDS[i]} == = ]] && ((i++))
      fi
    elif ((n == 0)) && [[ " ${_merlin_children["$node"]} " == *" $w "* ]]; then
      node=$node/$w
    else
      ((n++))
    fi
  done
  if [[ -n $opt ]]; then
    kind=$(_merlin_value_kind "$node" "$opt") && _merlin_offer "$kind" "$cur"
    return 0
  fi
  if [[ $prev == -* ]] && kind=$(_merlin_value_kind "$node" "$prev"); then
    _merlin_offer "$kind" "$cur"
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "${_merlin_options["$node"]}" -- "$cur"))
    return 0
  fi
  if ((n == 0)) && [[ -n ${_merlin_children["$node"]} ]]; then
    COMPREPLY=($(compgen -W "${_merlin_children["$node"]}" -- "$cur"))
    return 0
  fi
  local -a kinds=(${_merlin_positionals["$node"]})
  if ((n < ${#kinds[@]})); then kind=${kinds[n]}; else kind=${_merlin_rest["$node"]}; fi
  [[ -n $kind ]] && _merlin_offer "$kind" "$cur"
  return 0
}
)BASH";

}  // namespace

std::string short_summary(const std::string& whole) {
  // "(not in this build: ...)", a placeholder's help, is all one parenthesis.
  std::string help = whole;
  if (help.size() > 2 && help.front() == '(' && help.back() == ')')
    help = help.substr(1, help.size() - 2);
  size_t cut = help.size();
  for (const char* sep : {": ", " (", "; "}) cut = std::min(cut, help.find(sep));
  std::string s = help.substr(0, cut);
  while (!s.empty() && (s.back() == ' ' || s.back() == '.')) s.pop_back();
  return s;
}

std::vector<CommandSummary> visible_commands(CLI::App& root) {
  std::vector<CommandSummary> out;
  std::function<void(CLI::App&, std::vector<std::string>)> visit =
      [&](CLI::App& app, std::vector<std::string> path) {
        for (CLI::App* sub : app.get_subcommands([](CLI::App* s) { return visible(s); })) {
          auto p = path;
          p.push_back(sub->get_name());
          out.push_back({p, short_summary(sub->get_description())});
          visit(*sub, p);
        }
      };
  visit(root, {});
  return out;
}

std::string bash_completion_script(CLI::App& root, const std::string& program) {
  Tables t;
  walk(root, "merlin", {}, t);
  std::ostringstream s;
  s << "# bash completion for " << program << ": generated by `" << program
    << " completion bash` from the\n"
       "# command line the program parses; regenerate it rather than editing it.\n"
       "# Enable: source this file, or install it as\n"
       "# <prefix>/share/bash-completion/completions/"
    << program << ".\n\n";
  s << "declare -gA _merlin_children=(\n" << t.children.str() << ")\n";
  s << "declare -gA _merlin_options=(\n" << t.options.str() << ")\n";
  s << "declare -gA _merlin_values=(\n" << t.values.str() << ")\n";
  s << "declare -gA _merlin_positionals=(\n" << t.positionals.str() << ")\n";
  s << "declare -gA _merlin_rest=(\n" << t.rest.str() << ")\n";
  s << kFunctions;
  s << "complete -F _merlin " << program << "\n";
  return s.str();
}

}  // namespace merlin::cli
