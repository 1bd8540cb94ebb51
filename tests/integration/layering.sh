#!/usr/bin/env bash
# The dependency rule of docs/architecture.md, checked on the includes: a folder includes only
# its own files and the folders its row of the table lets it use. An include that reaches
# anywhere else, or a folder with no row, fails here with the file and the line.
source "$(dirname "$0")/lib.sh"
set +e
cd "$SRC"

# The allow-list is the "may use" column of docs/architecture.md's table, read by
# layer_rule.py: the doc and the check cannot drift apart. The CLI's row lets it use the run
# layer and the interfaces (it parses and prints; merlin/run decides); rows for single files
# let the wiring files name their adapters.
command -v python3 >/dev/null || { echo "SKIP layering: python3 is needed to read the table"; exit 77; }
expect_eq "every include stays within what docs/architecture.md lets its folder use" "" \
  "$(python3 "$SRC/tests/integration/layer_rule.py" "$SRC" docs/architecture.md)"
# The CLI names one concrete backend, in one file.
expect_eq "only merlin/cli/backends.cc includes a broker adapter" "merlin/cli/backends.cc" \
  "$(grep -rl '#include "adapters/broker/' merlin/cli | sort)"
# A broker is one folder plus one line in backends.cc: no product file outside adapters/broker
# names a broker's URL scheme (as a literal or a URL) or its default port; generic code asks
# the providers (merlin/core/broker/broker_provider.h). merlin/core/server and adapters/server run a Redis
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
       | grep -vE '^(adapters/broker|merlin/core/server|adapters/server)/|^merlin/cli/cmd_server\.cc:')"
# Dataset formats: named by one CLI file; HDF5 and nlohmann::json each stay in their one place.
# (merlin_train_main.cc is the merlin-train binary's own main, wiring HDF5, MPI and torch.)
expect_eq "only merlin/cli/data_formats.cc (and merlin-train's main) include a data adapter" \
  "$(printf '%s\n' merlin/cli/data_formats.cc merlin/cli/merlin_train_main.cc)" \
  "$(grep -rl '#include "adapters/data/' merlin workers | sort)"
expect_eq "hdf5.h only in adapters/data/hdf5" "adapters/data/hdf5/hdf5_handle.h" \
  "$(grep -rl '#include <hdf5.h>' merlin workers adapters | sort)"
# nlohmann::json: the reader of per-sample outputs, the one writer of JSON reports, and the web page's /api/status.
expect_eq "nlohmann::json only in merlin/core/data/json_output.cc, merlin/core/report/json_writer.cc and adapters/web/status_json.cc" \
  "$(printf '%s\n' adapters/web/status_json.cc merlin/core/data/json_output.cc merlin/core/report/json_writer.cc)" \
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
finish
