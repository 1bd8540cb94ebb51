#pragma once
/// The one-input functions of the fuzz targets (tests/fuzz/*_fuzz.cc), shared with the
/// regression test (tests/unit/fuzz/fuzz_regressions_test.cc) so that the gcc build replays every
/// input the fuzzers ever crashed on through the very same code. Each feeds the bytes to the
/// function production uses and then exercises what it returned; an error value is a pass, a
/// crash, sanitizer report, uncaught exception or failed self-check (std::abort) is a finding.
#include <string_view>
#include <vector>

namespace merlin::fuzz {

void spec_loader(std::string_view bytes);   ///< spec::parse_spec, as `merlin validate`
void npy_reader(std::string_view bytes);    ///< samples::read_npy_table
void csv_reader(std::string_view bytes);    ///< samples::read_text_table(kCsv)
void tab_reader(std::string_view bytes);    ///< samples::read_text_table(kTab)
void task_message(std::string_view bytes);  ///< decode, and encode ∘ decode round trip
void broker_url(std::string_view bytes);    ///< parse_broker_url, display, url_unquoted
void app_yaml(std::string_view bytes);      ///< spec::parse_app_config, run::app_broker
void json_output(std::string_view bytes);   ///< data::parse_json_output (merlin collect)
void npy_output(std::string_view bytes);    ///< data::parse_npy_output (merlin collect)
void csv_output(std::string_view bytes);    ///< data::parse_csv_output (merlin collect)

struct Target {
  const char* name;  ///< also the folder of its corpus and regressions
  void (*run)(std::string_view bytes);
};
/// Every target, by name.
const std::vector<Target>& targets();

/// For a fuzzer process only: logging off, and HOME pointed at a directory that does not exist
/// (app.yaml's `password:` names files looked for under ~/.merlin), so a target reads nothing
/// of the user's.
void init_fuzzer_process();

}  // namespace merlin::fuzz
