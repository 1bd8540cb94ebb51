// `tune` blocks against the rest of the spec (docs/tuning.md): the names a trial's command reads
// clash with no other name, and the command reads them and no sample's token.
#include <set>

#include "merlin/core/spec/source_text.h"
#include "merlin/core/spec/spec_reader.h"
#include "merlin/core/spec/spec_validator.h"
#include "merlin/core/spec/token.h"

namespace merlin::spec {
namespace {

// What else in the spec is called `name`: "parameter 'X'", "variable 'X'"... or "".
std::string other_holder(const StudySpec& spec, const std::string& name) {
  for (const auto& p : spec.parameters) {
    if (p.name == name) return "parameter '" + p.name + "'";
    if (p.name + ".label" == name) return "the label token of parameter '" + p.name + "'";
  }
  for (const auto& v : spec.variables)
    if (v.name == name) return "variable '" + v.name + "'";
  for (const auto& v : spec.labels)
    if (v.name == name) return "label '" + v.name + "'";
  if (spec.samples)
    for (const auto& c : spec.samples->column_labels)
      if (c == name) return "sample column label '" + c + "'";
  return "";
}

std::size_t earlier_copies(std::string_view value, std::string_view needle, std::size_t offset) {
  std::size_t n = 0;
  for (std::size_t pos = value.find(needle); pos < offset; pos = value.find(needle, pos + 1)) ++n;
  return n;
}

// A trial is not a sample: `$(MERLIN_SAMPLE_ID)` and the study's column labels mean nothing in
// a tune step's command.
void check_no_sample_tokens(const Text& text, const std::string& what, const Step& step,
                            const StudySpec& spec, const std::set<std::string>& own,
                            const SourceText& source, DiagnosticList& diags) {
  for (const TokenRef& t : find_tokens(text.value)) {
    if (own.count(t.name) != 0) continue;
    bool column = false;
    if (spec.samples)
      for (const auto& c : spec.samples->column_labels) column = column || c == t.name;
    if (!column && !is_sample_token(t.name)) continue;
    std::string_view raw = std::string_view(text.value).substr(t.offset, t.name.size() + 3);
    SourceLocation at =
        source.find_after(text.where, raw, earlier_copies(text.value, raw, t.offset));
    diags.error(at, "'$(" + t.name + ")' in " + what + " is " +
                        (column ? "a column of the study's samples" : "a sample token") +
                        ", but step '" + step.name +
                        "' is a tune step: a trial is not a sample, and a tune step runs once "
                        "per trial, not per sample (its configuration is the tokens of 'space')");
  }
}

bool mentions(const Text& text, const std::string& name) {
  for (const TokenRef& t : find_tokens(text.value))
    if (t.name == name) return true;
  return false;
}

}  // namespace

void check_tunes(const StudySpec& spec, std::string_view source, DiagnosticList& diags) {
  SourceText src(source);
  for (const Step& s : spec.steps) {
    if (!s.run.tune) continue;
    const TuneSpec& tune = *s.run.tune;
    const std::string in = " of the tune in step '" + s.name + "'";
    std::set<std::string> own;
    for (const auto& d : tune.space) {
      own.insert(d.name);
      if (auto other = other_holder(spec, d.name); !other.empty())
        diags.error(d.where, "space name '" + d.name + "'" + in + " clashes with " + other +
                                 "; rename the dimension");
      if (tune.budget && tune.budget->token == d.name)
        diags.error(d.where, "space name '" + d.name + "'" + in +
                                 " is also the budget token; rename one of them");
    }
    if (tune.budget && !tune.budget->token.empty()) {
      own.insert(tune.budget->token);
      if (auto other = other_holder(spec, tune.budget->token); !other.empty())
        diags.error(tune.budget->where, "budget token '" + tune.budget->token + "'" + in +
                                            " clashes with " + other + "; rename the token");
    }
    check_no_sample_tokens(s.run.cmd, "'cmd' of step '" + s.name + "'", s, spec, own, src, diags);
    check_no_sample_tokens(s.run.restart, "'restart' of step '" + s.name + "'", s, spec, own, src,
                           diags);
    // A dimension or budget the command never reads changes nothing the trial does.
    if (s.run.cmd.value.empty()) continue;
    // (A name that cannot be a token is already an error.)
    for (const auto& d : tune.space)
      if (is_token_name(d.name) && !mentions(s.run.cmd, d.name))
        diags.warning(d.where, "space name '" + d.name + "'" + in +
                                   " is not used by its 'cmd' (no $(" + d.name +
                                   ")): the trials would ignore it");
    if (tune.budget && is_token_name(tune.budget->token) &&
        !mentions(s.run.cmd, tune.budget->token))
      diags.warning(tune.budget->where,
                    "the budget token" + in + " is not used by its 'cmd' (no $(" +
                        tune.budget->token + ")): the trials would ignore their budget");
  }
}

}  // namespace merlin::spec
