#include "tests/fuzz/fuzz_entries.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "adapters/broker/amqp/amqp_provider.h"
#include "adapters/broker/redis/redis_provider.h"
#include "merlin/core/broker/broker_location.h"
#include "merlin/core/broker/task_message.h"
#include "merlin/core/data/output_reader.h"
#include "merlin/run/app_broker.h"
#include "merlin/core/samples/mapped_file.h"
#include "merlin/core/samples/npy_table.h"
#include "merlin/core/samples/sample_table.h"
#include "merlin/core/samples/text_table.h"
#include "merlin/core/spec/app_config.h"
#include "merlin/core/spec/spec_loader.h"
#include "merlin/core/util/log.h"

namespace merlin::fuzz {
namespace {

// A self-check failed: the fuzzer records the input as a crash.
void check(bool ok) {
  if (!ok) std::abort();
}

// What a run reads of a sample table: sizes, the first and last rows cell by cell and whole,
// one sequential pass, and the check every sampled study makes before it queues a task.
void exercise(const samples::SampleTable& table) {
  const std::size_t rows = table.rows(), cols = table.columns();
  check(rows > 0 && cols > 0);
  const std::size_t some_rows = std::min<std::size_t>(rows, 64);
  const std::size_t some_cols = std::min<std::size_t>(cols, 64);
  for (std::size_t r : {std::size_t{0}, some_rows - 1, rows - 1}) {
    const auto whole = table.row_values(r);
    check(whole.size() == cols);
    for (std::size_t c = 0; c < some_cols; ++c) check(table.value(r, c) == whole[c]);
  }
  std::size_t seen = 0;
  table.for_each_row([&](std::size_t row, const std::vector<std::string>& values) {
    check(row == seen++ && values.size() == cols);
    return seen < some_rows;
  });
  (void)samples::find_bad_value(table, samples::ValueRules{});
}

void table_of(Result<std::unique_ptr<samples::SampleTable>> table) {
  if (table) exercise(**table);
}

// What merlin collect does with a sample's fields: every value of every shape is there, and the
// shapes print (the writer's messages).
void exercise(const data::SampleFields& fields) {
  for (const auto& f : fields) {
    check(!f.name.empty());
    check(f.held() == f.size());
    (void)data::shape_text(f.shape);
  }
}

// One output kind, as collect_run's readers parse it.
void output_of(data::OutputKind kind, const char* stem, std::string_view bytes) {
  data::SampleFields fields;
  if (data::parse_output(kind, stem, bytes, fields)) exercise(fields);
}

}  // namespace

void spec_loader(std::string_view bytes) {
  // The alias limit a tenth of production's: an alias bomb reaches it, and is refused, on the
  // same path, in ~0.4 s instead of ~4 s under ASan + UBSan + coverage (13 s on a loaded
  // machine, past the 10 s hang limit), which would make the bounded run flaky.
  spec::LoadOptions options;
  options.max_alias_nodes = spec::LoadOptions{}.max_alias_nodes / 10;
  auto loaded = spec::parse_spec(bytes, "fuzz.yaml", options);
  if (!loaded) return;
  for (const auto& w : loaded->warnings) (void)w.str();
  // `merlin run` writes the expanded copy of an accepted spec into merlin_info/.
  (void)spec::emit_with_overrides(bytes, {});
}

void npy_reader(std::string_view bytes) {
  table_of(samples::read_npy_table(samples::MappedFile::copy_of("fuzz.npy", bytes)));
}

void csv_reader(std::string_view bytes) {
  table_of(samples::read_text_table(samples::MappedFile::copy_of("fuzz.csv", bytes),
                                    samples::TextFormat::kCsv));
}

void tab_reader(std::string_view bytes) {
  table_of(samples::read_text_table(samples::MappedFile::copy_of("fuzz.tab", bytes),
                                    samples::TextFormat::kTab));
}

void task_message(std::string_view bytes) {
  const auto m = decode(bytes);
  if (!m) return;
  const auto again = decode(encode(*m));
  check(again && *again == *m);
}

// The brokers' URL forms and app.yaml names, without opening anything (no client library).
const BrokerProviders& providers() {
  static const BrokerProvider redis = redis_provider_description();
  static const BrokerProvider amqp = amqp_provider_description();
  static const BrokerProviders table({&redis, &amqp});
  return table;
}

void broker_url(std::string_view bytes) {
  (void)url_unquoted(bytes);
  auto loc = parse_broker_url(bytes, providers());
  if (!loc) return;
  (void)loc->display();
  if (loc->results) (void)loc->results->display();
}

void app_yaml(std::string_view bytes) {
  auto config = spec::parse_app_config(bytes, "app.yaml");
  if (!config) return;
  std::vector<spec::IgnoredKey> unused = config->ignored;
  if (auto broker = run::app_broker(*config, unused, providers())) (void)broker->display();
  if (auto results = run::app_results_backend(*config, unused, providers()))
    (void)results->display();
  (void)run::unused_keys_note(unused);
}

void json_output(std::string_view bytes) { output_of(data::OutputKind::kJson, "result", bytes); }

void npy_output(std::string_view bytes) { output_of(data::OutputKind::kNpy, "field", bytes); }

void csv_output(std::string_view bytes) { output_of(data::OutputKind::kCsv, "table", bytes); }

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"spec_loader", spec_loader}, {"npy_reader", npy_reader},     {"csv_reader", csv_reader},
      {"tab_reader", tab_reader},   {"task_message", task_message}, {"broker_url", broker_url},
      {"app_yaml", app_yaml},       {"json_output", json_output},   {"npy_output", npy_output},
      {"csv_output", csv_output},
  };
  return all;
}

void init_fuzzer_process() {
  log::set_level(log::Level::kOff);
  // A home that does not exist: no ~/.merlin file is found, and nothing is created.
  ::setenv("HOME", "/nonexistent/merlin-fuzz-home", 1);
}

}  // namespace merlin::fuzz
