// A `batch:` block (the study's, or a worker's on top of the study's).
#include "merlin/core/spec/did_you_mean.h"
#include "merlin/core/spec/field_checks.h"
#include "merlin/core/spec/node_reader.h"
#include "merlin/core/spec/spec_reader.h"

namespace merlin::spec {
namespace {

const std::vector<std::string> kBatchKeys = {"type",        "bank",
                                             "queue",       "shell",
                                             "nodes",       "walltime",
                                             "dry_run",     "launch_pre",
                                             "launch_args", "worker_launch",
                                             "flux_path",   "flux_start_opts",
                                             "flux_exec",   "flux_exec_workers",
                                             "host",        "reservation",
                                             "qos",         "bb"};

// Keys kept raw in BatchSpec::other.
const std::vector<std::string> kOtherKeys = {"host", "reservation", "qos"};

}  // namespace

void read_batch(const YamlNode& node, const std::string& context, BatchSpec& out,
                DiagnosticList& diags) {
  if (!expect_map(node, context, diags)) return;
  check_keys(node, kBatchKeys, context, diags);
  auto what = [&](const std::string& key) { return "'" + key + "' in " + context; };
  for (const auto& e : node.entries) {
    const std::string& k = e.key;
    if (k == "dry_run") {
      if (auto b = read_bool(e.value, what(k), diags)) out.dry_run = *b;
      continue;
    }
    if (k == "flux_exec_workers") {
      if (auto b = read_bool(e.value, what(k), diags))
        out.flux_exec_workers = *b ? "true" : "false";
      continue;
    }
    if (k == "bb") {  // an extension: burst-buffer lines for Slurm jobs (docs/staging.md)
      if (e.value.is_sequence()) {
        if (auto list = read_scalar_list(e.value, what(k), diags)) out.bb = texts_to_strings(*list);
      } else if (auto line = read_scalar(e.value, what(k), diags)) {
        out.bb = {*line};
      }
      continue;
    }
    auto v = read_scalar(e.value, what(k), diags);
    if (!v) continue;
    if (k == "type") {
      if (!is_batch_type(*v)) {
        std::string kinds;
        for (const auto& t : batch_types()) kinds += (kinds.empty() ? "" : ", ") + t;
        diags.error(e.value.where, "batch type '" + *v + "' in " + context + " is not one of " +
                                       kinds + suggestion_suffix(*v, batch_types()));
      }
      out.type = *v;
    } else if (k == "shell") {
      if (v->empty()) diags.error(e.value.where, what(k) + " is empty");
      out.shell = *v;
    } else if (k == "nodes") {
      if (!is_count(*v, 1))
        diags.error(e.value.where, what(k) + " must be a positive whole number, got '" + *v + "'");
      out.nodes = *v;
    } else if (k == "walltime") {
      if (!is_walltime(*v)) {
        diags.error(e.value.where,
                    what(k) + " must be HH:MM:SS, MM:SS or a number of seconds, got '" + *v + "'");
      }
      out.walltime = *v;
    } else if (k == "bank") {
      out.bank = *v;
    } else if (k == "queue") {
      out.queue = *v;
    } else if (k == "launch_pre") {
      out.launch_pre = *v;
    } else if (k == "launch_args") {
      out.launch_args = *v;
    } else if (k == "worker_launch") {
      out.worker_launch = *v;
    } else if (k == "flux_path") {
      out.flux_path = *v;
    } else if (k == "flux_start_opts") {
      out.flux_start_opts = *v;
    } else if (k == "flux_exec") {
      out.flux_exec = *v;
    } else {
      for (const auto& o : kOtherKeys)
        if (o == k) out.other[k] = *v;
    }
  }
}

}  // namespace merlin::spec
