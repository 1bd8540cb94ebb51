// Unknown `$(NAME)` references, and the study name as a directory name.
#include <set>

#include "merlin/core/spec/did_you_mean.h"
#include "merlin/core/spec/field_checks.h"
#include "merlin/core/spec/source_text.h"
#include "merlin/core/spec/spec_validator.h"
#include "merlin/core/spec/token.h"

namespace merlin::spec {
namespace {

// Every name a step command may use; `known` for lookups, `list` for suggestions.
struct KnownNames {
  std::set<std::string> known;
  std::vector<std::string> list;
  void add(const std::string& n) {
    if (known.insert(n).second) list.push_back(n);
  }
};

KnownNames command_names(const StudySpec& spec) {
  KnownNames k;
  for (const auto& v : spec.variables) k.add(v.name);
  for (const auto& v : spec.labels) k.add(v.name);
  for (const auto& p : spec.parameters) {
    k.add(p.name);
    k.add(p.name + ".label");
  }
  if (spec.samples)
    for (const auto& c : spec.samples->column_labels) k.add(c);
  for (const auto& s : spec.steps) k.add(s.name + ".workspace");
  return k;
}

// `$(pwd)`-like: a lowercase word is more likely a shell command substitution (which Merlin
// leaves alone and the shell runs) than a misspelt token, unless it is close to a known name.
bool looks_like_shell_command(const std::string& name) {
  if (name.empty() || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  return true;
}

// Count earlier copies of the same token text, so the n-th copy in the value is found as the
// n-th copy in the file.
std::size_t earlier_copies(std::string_view value, std::string_view needle, std::size_t offset) {
  std::size_t n = 0;
  for (std::size_t pos = value.find(needle); pos < offset; pos = value.find(needle, pos + 1)) ++n;
  return n;
}

void check_text(const Text& text, const std::string& what, const KnownNames& names,
                const SourceText& source, DiagnosticList& diags, bool strict) {
  for (const TokenRef& t : find_tokens(text.value)) {
    if (is_reserved_token(t.name) || names.known.count(t.name) != 0) continue;
    std::string_view raw = std::string_view(text.value).substr(t.offset, t.name.size() + 3);
    SourceLocation at =
        source.find_after(text.where, raw, earlier_copies(text.value, raw, t.offset));
    std::string hint = suggestion_suffix(t.name, names.list, "$(", ")");
    if (hint.empty() && looks_like_shell_command(t.name)) {
      diags.warning(at, "'$(" + t.name + ")' in " + what +
                            " is not a known token; it is left for the shell to run as a command");
      continue;
    }
    if (strict) {
      diags.error(at, "unknown token '$(" + t.name + ")' in " + what + hint);
    } else {
      diags.warning(at, "unknown token '$(" + t.name + ")' in " + what + hint +
                            "; it is left as written, for the shell (an error with "
                            "`validate --strict`)");
    }
  }
}

}  // namespace

void check_tokens(const StudySpec& spec, std::string_view source, DiagnosticList& diags,
                  bool strict) {
  SourceText src(source);
  KnownNames names = command_names(spec);
  for (const auto& v : spec.variables)
    check_text(Text{v.value, v.where}, "variable '" + v.name + "'", names, src, diags, strict);
  for (const auto& v : spec.labels)
    check_text(Text{v.value, v.where}, "label '" + v.name + "'", names, src, diags, strict);
  for (const auto& s : spec.steps) {
    const KnownNames* step_names = &names;
    KnownNames own;  // a samples_from step's own labels, a tune step's trial tokens
    if (s.run.samples_from) {
      check_text(s.run.samples_from->file, "'samples_from.file' of step '" + s.name + "'", names,
                 src, diags, strict);
      own = names;
      for (const auto& c : s.run.samples_from->column_labels) own.add(c);
      step_names = &own;
    }
    if (s.run.tune) {
      // A trial's tokens (docs/tuning.md): its space, its budget, its directory, number, rung.
      if (step_names != &own) own = *step_names;
      for (const auto& d : s.run.tune->space) own.add(d.name);
      if (s.run.tune->budget && !s.run.tune->budget->token.empty())
        own.add(s.run.tune->budget->token);
      for (const char* t : {"TRIAL_DIR", "MERLIN_TRIAL", "MERLIN_RUNG"}) own.add(t);
      step_names = &own;
      check_text(s.run.tune->metric.file, "'metric.file' of the tune in step '" + s.name + "'", own,
                 src, diags, strict);
    }
    check_text(s.run.cmd, "'cmd' of step '" + s.name + "'", *step_names, src, diags, strict);
    check_text(s.run.restart, "'restart' of step '" + s.name + "'", *step_names, src, diags,
               strict);
  }
}

void check_study_name(const StudySpec& spec, std::string_view source, DiagnosticList& diags) {
  if (spec.name.empty()) return;
  // Substitute variables and labels (a few rounds, for variables built from variables); other
  // tokens may only be reserved names, left as written.
  std::string expanded = spec.name;
  bool used_variables = false;
  for (int round = 0; round < 8; ++round) {
    std::string next;
    std::size_t last = 0;
    bool changed = false;
    for (const TokenRef& t : find_tokens(expanded)) {
      next += expanded.substr(last, t.offset - last);
      last = t.offset + t.length;
      const Variable* found = nullptr;
      for (const auto* list : {&spec.variables, &spec.labels})
        for (const auto& v : *list)
          if (v.name == t.name) found = &v;
      if (found != nullptr) {
        next += found->value;
        changed = true;
      } else {
        next += expanded.substr(t.offset, t.length);
        if (round == 0 && !is_reserved_token(t.name)) {
          SourceText src(source);
          diags.error(src.find_after(spec.name_where, "$(" + t.name + ")", 0),
                      "unknown token '$(" + t.name + ")' in the study name");
        }
      }
    }
    next += expanded.substr(std::min(last, expanded.size()));
    expanded = next;
    used_variables = used_variables || changed;
    if (!changed) break;
  }
  // Reserved tokens left in the name ($(MERLIN_TIMESTAMP)) are resolved at run time, where
  // the whole name is checked again; here each stands for one plain character.
  std::string checked;
  std::size_t last = 0;
  for (const TokenRef& t : find_tokens(expanded)) {
    checked += expanded.substr(last, t.offset - last) + "x";
    last = t.offset + t.length;
  }
  checked += expanded.substr(std::min(last, expanded.size()));
  const DirNameProblem problem = dir_name_problem(checked, kMaxStudyNameBytes);
  if (problem.kind == DirNameProblem::Kind::kNone) return;
  std::string why = problem.reason;
  if (problem.kind == DirNameProblem::Kind::kTooLong)
    why += " (the workspace directory '<name>_YYYYMMDD-HHMMSS' must fit in 255 bytes)";
  if (used_variables) {
    diags.error(spec.name_where, "study name '" + spec.name + "' expands to '" + expanded +
                                     "', which cannot be a directory name: " + why);
  } else {
    diags.error(spec.name_where,
                "study name '" + spec.name + "' cannot be a directory name: " + why);
  }
}

}  // namespace merlin::spec
