#!/usr/bin/env bash
# The dependency rule of docs/architecture.md, checked on the includes: a folder includes only
# its own files and the folders its row of the table lets it use. An include that reaches
# anywhere else, or a folder with no row, fails here with the file and the line.
source "$(dirname "$0")/lib.sh"
set +e
cd "$SRC"

# The allow-list is the "may use" column of docs/architecture.md's table, read by
# layer_rule.py: the doc and the check cannot drift apart.
command -v python3 >/dev/null || { echo "SKIP layering: python3 is needed to read the table"; exit 77; }
expect_eq "every include stays within what docs/architecture.md lets its folder use" "" \
  "$(python3 "$SRC/tests/integration/layer_rule.py" "$SRC" docs/architecture.md)"
# The CLI names one concrete backend, in one file.
expect_eq "only merlin/cli/backends.cc includes a broker adapter" "merlin/cli/backends.cc" \
  "$(grep -rl '#include "adapters/broker/' merlin/cli | sort)"
# A broker is one folder plus one line in backends.cc: no product file outside adapters/broker
# names a broker's URL scheme (as a literal or a URL) or its default port; generic code asks
# the providers (merlin/broker/broker_provider.h). merlin/server and adapters/server run a Redis
# server (`merlin server`), whose own port they name.
# Code only: comments (from a "//" after a blank or at the line's start) are cut first.
broker_code() {
  grep -rnE "$1" merlin workers adapters --include='*.h' --include='*.cc' \
    | sed -E 's#^([^:]+:[0-9]+:)(.*[[:space:]]|)//.*$#\1\2#' | grep -E "$1"
}
expect_eq "no broker URL scheme literal outside adapters/broker" "" \
  "$(broker_code '"(amqp|amqps|pyamqp|rediss|redis\+socket|unix)"|(amqps?|pyamqp|rediss|redis\+socket)://' \
       | grep -v '^adapters/broker/')"
expect_eq "no broker default port outside adapters/broker" "" \
  "$(broker_code '\b(5671|5672|6379)\b' \
       | grep -vE '^(adapters/broker|merlin/server|adapters/server)/|^merlin/cli/cmd_server\.cc:')"
# Dataset formats: named by one CLI file; HDF5 and nlohmann::json each stay in their one place.
# (merlin_train_main.cc is the merlin-train binary's own main, wiring HDF5, MPI and torch.)
expect_eq "only merlin/cli/data_formats.cc (and merlin-train's main) include a data adapter" \
  "$(printf '%s\n' merlin/cli/data_formats.cc merlin/cli/merlin_train_main.cc)" \
  "$(grep -rl '#include "adapters/data/' merlin workers | sort)"
expect_eq "hdf5.h only in adapters/data/hdf5" "adapters/data/hdf5/hdf5_handle.h" \
  "$(grep -rl '#include <hdf5.h>' merlin workers adapters | sort)"
# nlohmann::json: the reader of per-sample outputs, the one writer of JSON reports, and the web page's /api/status.
expect_eq "nlohmann::json only in merlin/data/json_output.cc, merlin/report/json_writer.cc and adapters/web/status_json.cc" \
  "$(printf '%s\n' adapters/web/status_json.cc merlin/data/json_output.cc merlin/report/json_writer.cc)" \
  "$(grep -rl '#include <nlohmann/' merlin workers adapters | sort)"
expect_eq "httplib.h only in adapters/web/httplib_server.cc" "adapters/web/httplib_server.cc" \
  "$(grep -rl '#include <httplib.h>' merlin workers adapters | sort)"
# merlin-train: torch in adapters/ml/torch, MPI in adapters/ml/mpi, nowhere else in the product.
expect_eq "torch only in adapters/ml/torch" "adapters/ml/torch/mlp.h" \
  "$(grep -rl '#include <torch/' merlin workers adapters | sort)"
# Redis over TLS: OpenSSL in one file (rabbitmq-c keeps its own out of sight).
expect_eq "OpenSSL only in adapters/broker/redis/tls_stream.cc" "adapters/broker/redis/tls_stream.cc" \
  "$(grep -rl '#include <openssl/' merlin workers adapters | sort)"
expect_eq "mpi.h only in adapters/ml/mpi" "adapters/ml/mpi/mpi_communicator.cc" \
  "$(grep -rl '#include <mpi.h>' merlin workers adapters | sort)"
# The CLI parses and prints; the run layer decides. A cli/ file includes only merlin/cli,
# merlin/run, merlin/util, merlin/report, merlin/spec and the merlin/broker interfaces; the
# workers, the Plan, the workspace formats and the study model are reached through merlin/run.
# The wiring files name their adapters: backends.* (brokers, the server probe), data_formats.*
# (dataset formats), merlin_train_main.cc (HDF5, MPI, torch), cmd_server.cc (the local Redis
# server), monitor_web.cc (the web page), cmd_sample.cc (the sampling designs);
# broker_config.cc reads the step environment's credential rule (workers/step_environment.h).
cli_allowed='merlin/(cli|run|util|report|spec|broker)/'
declare -A CLI_WIRING=(
  [merlin/cli/backends.h]='merlin/server/'
  [merlin/cli/backends.cc]='adapters/broker/|merlin/server/'
  [merlin/cli/data_formats.h]='merlin/data/'
  [merlin/cli/data_formats.cc]='adapters/data/|merlin/data/'
  [merlin/cli/merlin_train_main.cc]='adapters/(data|ml)/|merlin/(ml|samples|data)/'
  [merlin/cli/cmd_server.cc]='adapters/server/|merlin/server/'
  [merlin/cli/monitor_web.cc]='adapters/web/'
  [merlin/cli/cmd_sample.cc]='merlin/sampling/'
  [merlin/cli/broker_config.cc]='workers/step_environment\.h'
)
cli_bad=""
for f in merlin/cli/*.h merlin/cli/*.cc; do
  allowed="$cli_allowed"
  [ -n "${CLI_WIRING[$f]:-}" ] && allowed="$cli_allowed|${CLI_WIRING[$f]}"
  hits=$(grep -n '#include "' "$f" | grep -Ev "#include \"($allowed)")
  [ -n "$hits" ] && cli_bad+="$f: $hits"$'\n'
done
expect_eq "merlin/cli includes only its allowed layers (and each wiring file its adapters)" "" \
  "${cli_bad%$'\n'}"
finish
