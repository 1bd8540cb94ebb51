#!/usr/bin/env bash
# `merlin sample` and the disk (issue #25 item 9): a row count that is not positive or is absurd
# is refused before anything is written (exit 2); an output the file system has no room for is
# refused with the estimate and what is free (exit 4); SIGINT and SIGTERM remove the temporary
# file (exit 1). No check here may fill a disk: the writes go to a small tmpfs when one can be
# mounted (root), and every file this test makes is capped by `ulimit -f`.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
ulimit -f 1048576  # 1 GiB, in 1 KiB blocks: whatever goes wrong, no file grows past it

no_output() { ! ls -a "$1" | grep -q "$2"; }

# --- Counts: refused before a file is made.
for n in -5 0 -1 -18446744073709551611 18446744073709551611 99999999999999999999 2000000000000; do
  "$MERLIN" sample -n "$n" -d 2 -o "$WORK/bad.npy" >/dev/null 2>err.txt
  rc=$?
  expect_eq "-n $n: exit 2" 2 "$rc"
  check "-n $n: nothing written" no_output "$WORK" "bad.npy"
  check "-n $n: says the allowed range" grep -q "^merlin: -n/--rows: .*from 1 to 1000000000000" err.txt
done
"$MERLIN" sample -n -5 -m sobol -d 2 -o "$WORK/bad.csv" 2>err.txt
expect_eq "-n -5 with sobol: exit 2" 2 $?
check "-n -5 with sobol: the count is named as given, not wrapped" grep -qF -- "-n/--rows: -5 " err.txt

# --- A file system too small for the output. A tmpfs of 8 MiB when one can be mounted;
# otherwise the file system of $WORK with a count that needs twice its free space.
SMALL=$WORK/small
mkdir "$SMALL"
if mount -t tmpfs -o size=8m tmpfs "$SMALL" 2>/dev/null; then
  CLEANUP=("umount -l '$SMALL'" "${CLEANUP[@]}")
  big=2000000  # 2e6 rows x 1 column of float64: 15.3 MiB
  "$MERLIN" sample -n 100000 -d 1 -o "$SMALL/fits.npy" 2>fits.err
  expect_eq "a file that fits the 8 MiB tmpfs: exit 0" 0 $?
  check "it is there, whole (128-byte header + 800000 bytes)" test "$(stat -c %s "$SMALL/fits.npy")" -eq 800128
  rm -f "$SMALL/fits.npy"
else
  echo "note: cannot mount a tmpfs here; using $WORK's file system"
  free_kb=$(df -Pk "$SMALL" | awk 'NR == 2 { print $4 }')
  big=$((free_kb * 1024 / 8 * 2))
fi
"$MERLIN" sample -n "$big" -d 1 -o "$SMALL/big.npy" 2>big.err
expect_eq "no room for the output: exit 4" 4 $?
check "no room: the estimate and what is free, in one line" \
  grep -qE "^merlin: $SMALL/big.npy needs about [0-9.]+ [KMGT]iB and its file system has [0-9.]+ [KMGT]?i?B free" big.err
check "no room: nothing written" no_output "$SMALL" "big.npy"
"$MERLIN" sample -n "$big" -d 1 -o "$SMALL/big.csv" 2>big.err
expect_eq "no room (csv): exit 4" 4 $?
check "no room (csv): nothing written" no_output "$SMALL" "big.csv"

# --- Interrupted: the temporary file goes. A big csv (slow to format), written to a 1 GiB
# tmpfs (memory is used only as it is written) or $WORK; stopped as soon as its temporary file
# appears, long before it is done.
ROOM=$WORK/room
mkdir "$ROOM"
if mount -t tmpfs -o size=1g tmpfs "$ROOM" 2>/dev/null; then
  CLEANUP=("umount -l '$ROOM'" "${CLEANUP[@]}")
elif [ "$(df -Pk "$ROOM" | awk 'NR == 2 { print $4 }')" -lt 2000000 ]; then
  echo "SKIP the interrupt checks: no tmpfs and less than 2 GB free"; finish; exit
fi
# interrupted SIGNAL FILE TMPNAME_PREFIX ARGS...: starts `merlin sample ARGS -o FILE`, waits (at
# most 20 s) for its temporary file TMPNAME_PREFIX<pid>, sends SIGNAL, waits (at most 20 s) for it
# to end. Sets rc (its exit code; 124 if it did not end) and tmp (the temporary file's path).
interrupted() {
  local sig=$1 out=$2 prefix=$3
  shift 3
  # Job control on: a background job of a script would otherwise start with SIGINT ignored.
  set -m
  "$MERLIN" sample "$@" -o "$out" 2>int.err &
  local pid=$!
  set +m
  tmp=$prefix$pid
  if ! wait_until 20 test -e "$tmp"; then
    fail "the temporary file $tmp never appeared"
  fi
  kill "-$sig" "$pid"
  if wait_until 20 bash -c "! kill -0 $pid 2>/dev/null"; then
    wait "$pid"
    rc=$?
  else
    kill -9 "$pid"
    wait "$pid"
    rc=124
  fi
}
interrupted INT "$ROOM/x.csv" "$ROOM/x.csv.tmp." -n 30000000 -d 1
expect_eq "SIGINT during a csv: exit 1" 1 "$rc"
check "SIGINT: the temporary file is removed" test ! -e "$tmp"
check "SIGINT: no output file" test ! -e "$ROOM/x.csv"
check "SIGINT: says it was interrupted and nothing was written" grep -q "interrupted.*nothing written" int.err
interrupted TERM "$ROOM/x.npy" "$ROOM/x.npy.tmp." -n 60000000 -d 2 -m lhs
expect_eq "SIGTERM during a npy: exit 1" 1 "$rc"
check "SIGTERM: the temporary file is removed" test ! -e "$tmp"
check "SIGTERM: no output file" test ! -e "$ROOM/x.npy"
if "$MERLIN" sample -n 2 -d 1 -o "$WORK/probe.h5" 2>/dev/null; then
  interrupted TERM "$ROOM/x.h5" "$ROOM/.x.h5.tmp." -n 100000000 -d 1
  expect_eq "SIGTERM during an h5: exit 1" 1 "$rc"
  check "SIGTERM (h5): the temporary file is removed" test ! -e "$tmp"
  check "SIGTERM (h5): no output file" test ! -e "$ROOM/x.h5"
else
  echo "note: this merlin writes no HDF5; the .h5 interrupt is not checked"
fi
check "nothing left behind in the output directory" test -z "$(ls -A "$ROOM")"
finish
