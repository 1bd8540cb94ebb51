#!/usr/bin/env bash
# The dependency rule of docs/architecture.md, checked on the includes: a folder includes only
# folders of its own layer or below. A new include that reaches up fails here with the file
# and the line.
source "$(dirname "$0")/lib.sh"
set +e
cd "$SRC"

# folder -> the folders it must not include
declare -A FORBIDDEN=(
  [merlin/util]="merlin/report merlin/data merlin/spec merlin/samples merlin/study merlin/workspace merlin/plan merlin/broker merlin/batch merlin/run merlin/cli workers adapters"
  [merlin/spec]="merlin/data merlin/samples merlin/study merlin/workspace merlin/plan merlin/broker merlin/run merlin/cli workers adapters"
  [merlin/samples]="merlin/data merlin/spec merlin/study merlin/workspace merlin/plan merlin/broker merlin/batch merlin/run merlin/cli workers adapters"
  [merlin/sampling]="merlin/data merlin/spec merlin/samples merlin/study merlin/workspace merlin/plan merlin/broker merlin/batch merlin/run merlin/cli workers adapters"
  [merlin/data]="merlin/spec merlin/sampling merlin/study merlin/workspace merlin/plan merlin/broker merlin/batch merlin/run merlin/cli workers adapters"
  [merlin/batch]="merlin/study merlin/workspace merlin/plan merlin/broker merlin/run merlin/cli workers adapters"
  [merlin/study]="merlin/workspace merlin/plan merlin/run merlin/cli workers adapters"
  [merlin/broker]="merlin/workspace merlin/plan merlin/run merlin/cli workers adapters"
  [merlin/plan]="merlin/workspace merlin/run merlin/cli workers adapters"
  [merlin/workspace]="merlin/plan merlin/run merlin/cli workers adapters"
  [workers]="merlin/run merlin/cli adapters"
  [adapters/broker/local]="merlin/run merlin/cli workers adapters/broker/redis adapters/scheduler"
  [adapters/broker/redis]="merlin/run merlin/cli merlin/server workers adapters/broker/local adapters/scheduler adapters/server"
  [adapters/broker/amqp]="merlin/run merlin/cli workers adapters/broker/local adapters/broker/redis adapters/scheduler"
  [adapters/scheduler]="merlin/run merlin/cli workers adapters/broker"
  [adapters/data/hdf5]="merlin/spec merlin/samples merlin/sampling merlin/study merlin/workspace merlin/plan merlin/broker merlin/batch merlin/run merlin/cli workers adapters/broker adapters/scheduler"
  [merlin/run]="merlin/cli adapters/broker/redis adapters/data adapters/web adapters/server"
  [merlin/report]="merlin/data merlin/spec merlin/samples merlin/sampling merlin/study merlin/workspace merlin/plan merlin/broker merlin/batch merlin/run merlin/cli workers adapters"
  [adapters/web]="merlin/cli workers adapters/broker adapters/scheduler adapters/data adapters/ml"
  [merlin/server]="merlin/data merlin/spec merlin/samples merlin/sampling merlin/study merlin/workspace merlin/plan merlin/broker merlin/batch merlin/run merlin/cli workers adapters"
  [adapters/server]="merlin/run merlin/cli workers adapters/broker adapters/scheduler adapters/data adapters/ml"
  [merlin/ml]="merlin/spec merlin/samples merlin/sampling merlin/study merlin/workspace merlin/plan merlin/broker merlin/batch merlin/run merlin/cli workers adapters"
  [adapters/ml/torch]="merlin/run merlin/cli workers adapters/broker adapters/scheduler adapters/data adapters/ml/mpi"
  [adapters/ml/mpi]="merlin/run merlin/cli workers adapters/broker adapters/scheduler adapters/data adapters/ml/torch"
)
for folder in "${!FORBIDDEN[@]}"; do
  bad=""
  for up in ${FORBIDDEN[$folder]}; do
    hits=$(grep -rn "#include \"$up/" "$folder" --include='*.h' --include='*.cc' 2>/dev/null)
    [ -n "$hits" ] && bad+="$hits"$'\n'
  done
  expect_eq "$folder includes nothing above its layer" "" "${bad%$'\n'}"
done
# The CLI names one concrete backend, in one file.
expect_eq "only merlin/cli/backends.cc includes a broker adapter" "merlin/cli/backends.cc" \
  "$(grep -rl '#include "adapters/broker/' merlin/cli | sort)"
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
