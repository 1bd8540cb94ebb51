#!/usr/bin/env bash
# Errors are told apart by their type, never by their text (issue #26): product code reads an
# error's kind from `Error::code` (inside the Redis adapter, also the server's error code, read
# once where the reply is parsed: adapters/broker/redis/redis_error.h), and prints `message`
# without searching it. A line that searches an error message fails here with the file and the
# line.
source "$(dirname "$0")/lib.sh"
set +e
cd "$SRC"

# message.find( / .rfind( / .starts_with( / .ends_with( / .contains( / .compare(, the same on
# what(), and a message compared whole with == or != (a message is for people to read).
PATTERN='(message|what\(\))\)?\.(find|rfind|starts_with|ends_with|contains|compare)\(|message *[!=]= *"|errstr\) *[!=]='
searches() { grep -rnE "$PATTERN" "$@" --include='*.h' --include='*.cc' 2>/dev/null; }

expect_eq "no product code searches an error message (merlin/, workers/, adapters/)" "" \
  "$(searches merlin workers adapters)"

# The check can fail: each form it exists for is caught in a scratch file.
scratch=$(mktemp -d "$WORK/planted.XXXXXX")
cat >"$scratch/planted.cc" <<'CC'
if (r.error().message.find("NOGROUP") != std::string::npos) return;
if (e.message.rfind("LOADING", 0) == 0) return;
if (err.message.starts_with("merlin:")) return;
if (std::string(ex.what()).find("bytes long") != std::string::npos) return;
if (e.what().find("x")) return;
if (e.message == "study s is queued already") return;
if (std::string(ctx->errstr) == std::strerror(ECONNRESET)) return;
CC
expect_eq "the check catches each form of a search on an error message" 7 \
  "$(searches "$scratch" | wc -l)"
finish
