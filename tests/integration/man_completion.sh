#!/usr/bin/env bash
# The man pages and the bash completion the build makes from the built merlin itself
# (cmake/merlin_docs.cmake, `merlin completion`): they exist, render without warnings, and
# cover every command `merlin --help` lists; the completion completes commands, flags, listed
# values and spec files as a user's bash would call it.
source "$(dirname "$0")/lib.sh"
BUILD=$(dirname "$MERLIN")
MAN_DIR=$BUILD/share/man/man1
COMPLETION=$BUILD/share/bash-completion/completions/merlin

# The commands as the parser lists them (its --help), not as the generator does.
mapfile -t COMMANDS < <("$MERLIN" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF { print $1 }')
check "merlin --help lists commands (${#COMMANDS[@]})" test "${#COMMANDS[@]}" -ge 15

# --- the bash completion -------------------------------------------------------------------
check "the build made $COMPLETION" test -s "$COMPLETION"
expect_eq "it is what this merlin prints for 'merlin completion bash' (in sync)" \
  "$("$MERLIN" completion bash)" "$(cat "$COMPLETION")"
"$MERLIN" completion fish >/dev/null 2>err.txt && rc=0 || rc=$?
expect_eq "merlin completion fish: bad input (exit 2)" 2 "$rc"
check "... and says what it takes" grep -q "bash or commands" err.txt

mkdir specdir && touch specdir/a.yaml specdir/b.txt specdir/c.yml && mkdir specdir/sub
# complete WORD...: what _merlin offers for the command line WORD... (the last word is the one
# being completed), one completion per line, sorted, from a bash with only this script loaded.
complete_words() {
  (cd specdir && bash --norc --noprofile -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
    COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
    _merlin merlin "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort' bash "$COMPLETION" "$@")
}
expect_eq "complete -p merlin: the function _merlin" "complete -F _merlin merlin" \
  "$(bash --norc --noprofile -c 'source "$1" && complete -p merlin' bash "$COMPLETION")"
expect_eq "merlin ru -> run, run-workers" $'run\nrun-workers' "$(complete_words merlin ru)"
expect_eq "merlin status --for -> --format" "--format" "$(complete_words merlin status --for)"
expect_eq "merlin status --format '' -> csv json table" $'csv\njson\ntable' \
  "$(complete_words merlin status --format '')"
expect_eq "merlin status --format=j -> json (bash splits at =)" "json" \
  "$(complete_words merlin status --format = j)"
expect_eq "merlin run '' -> the spec files and directories, not b.txt" $'a.yaml\nc.yml\nsub' \
  "$(complete_words merlin run '')"
expect_eq "merlin run --local --jobs 2 '' -> spec files after flags and option values" \
  $'a.yaml\nc.yml\nsub' "$(complete_words merlin run --local --jobs 2 '')"
expect_eq "merlin --log-level w -> warn, warning" $'warn\nwarning' \
  "$(complete_words merlin --log-level w)"
expect_eq "merlin run --log-level e (after the command, as CLI11 takes it) -> error" "error" \
  "$(complete_words merlin run --log-level e)"
expect_eq "merlin config c -> create (a command's subcommands)" "create" \
  "$(complete_words merlin config c)"
expect_eq "merlin config create --broker '' -> rabbitmq redis" $'rabbitmq\nredis' \
  "$(complete_words merlin config create --broker '')"
expect_eq "merlin restart '' -> directories only" "sub" "$(complete_words merlin restart '')"
expect_eq "merlin run --jobs '' -> nothing for a number" "" "$(complete_words merlin run --jobs '')"
offered=$(complete_words merlin '')
missing=()
for c in "${COMMANDS[@]}"; do grep -qx -- "$c" <<<"$offered" || missing+=("$c"); done
expect_eq "merlin '' offers every command of --help" "" "${missing[*]}"
flags_missing=()
for c in "${COMMANDS[@]}"; do
  offered=$(complete_words merlin "$c" -)
  for f in $("$MERLIN" "$c" --help | grep -oE '^  (-[a-zA-Z], )?--[a-z_-]+' | grep -oE -- '--[a-z_-]+'); do
    grep -qx -- "$f" <<<"$offered" || flags_missing+=("$c:$f")
  done
done
expect_eq "merlin CMD - offers every flag of 'merlin CMD --help', for every command" "" \
  "${flags_missing[*]}"

# --- the man pages -------------------------------------------------------------------------
if ! command -v help2man >/dev/null; then
  echo "SKIP (man pages): help2man not found, the build made none (apt-get install help2man)"
  finish
  exit $?
fi
if ! command -v groff >/dev/null; then
  echo "SKIP (man pages): groff not found (apt-get install groff-base)"
  finish
  exit $?
fi
check "the build made $MAN_DIR/merlin.1" test -s "$MAN_DIR/merlin.1"
# render PAGE: the page as text, and "WARNINGS" with groff's complaints if it has any.
render() {
  # plain text: no hyphenation, long lines, no bold/underline sequences (-P-cbou)
  LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -rHY=0 -rLL=200n -P-cbou "$1" 2>groff.err
  [ ! -s groff.err ] || { echo WARNINGS; cat groff.err; }
}
text=$(render "$MAN_DIR/merlin.1")
check "merlin.1 renders without warnings" bash -c '! grep -q WARNINGS <<<"$1"' _ "$text"
for section in NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS FILES ENVIRONMENT "EXIT STATUS" "SEE ALSO"; do
  check "merlin.1 has $section" grep -q "^$section" <<<"$text"
done
check "merlin.1 names MERLIN_BROKER_URL and app.yaml" \
  bash -c 'grep -q MERLIN_BROKER_URL <<<"$1" && grep -q "~/.merlin/app.yaml" <<<"$1"' _ "$text"
if command -v man >/dev/null; then
  check "man -l merlin.1 shows it" bash -c 'MANWIDTH=100 man -l "$1" 2>/dev/null | grep -q "^COMMANDS"' _ "$MAN_DIR/merlin.1"
fi
not_in_page=() bad_pages=() flags_not_in_page=()
for c in "${COMMANDS[@]}"; do
  grep -qE "^ +$c \(merlin-$c\(1\)\)" <<<"$text" || not_in_page+=("$c")
  page=$MAN_DIR/merlin-$c.1
  sub_text=$(render "$page" 2>/dev/null || true)
  if [ ! -s "$page" ] || grep -q WARNINGS <<<"$sub_text" || ! grep -q "merlin $c" <<<"$sub_text"; then
    bad_pages+=("merlin-$c.1")
    continue
  fi
  for f in $("$MERLIN" "$c" --help | grep -oE '^  (-[a-zA-Z], )?--[a-z_-]+' | grep -oE -- '--[a-z_-]+'); do
    grep -q -- "$f" <<<"$sub_text" || flags_not_in_page+=("$c:$f")
  done
done
expect_eq "merlin.1's COMMANDS lists every command with its page" "" "${not_in_page[*]}"
expect_eq "every command has a page merlin-CMD.1 that renders cleanly and names it" "" "${bad_pages[*]}"
expect_eq "each page documents every flag of the command's --help" "" "${flags_not_in_page[*]}"
check "nested commands have pages too (merlin-config-create.1)" test -s "$MAN_DIR/merlin-config-create.1"
finish
