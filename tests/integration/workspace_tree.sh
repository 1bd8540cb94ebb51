#!/usr/bin/env bash
# The workspace trees of hello, hello_samples and a parameters x samples x funnel study, after a
# real run and after a dry run, against goldens that follow Merlin 1.13's layout.
source "$(dirname "$0")/lib.sh"
golden=$SRC/tests/integration/golden
update=${MERLIN_UPDATE_GOLDEN:-0}

compare_tree() {  # name dir
  local got; got=$(tree_of "$2")
  if [ "$update" = 1 ]; then echo "$got" >"$golden/$1.tree"; fi
  expect_eq "tree $1" "$(cat "$golden/$1.tree")" "$got"
}

mkdir hello && (cd hello && "$MERLIN" run --local --no-progress "$SRC/examples/hello/hello.yaml" >/dev/null 2>&1)
check "hello exits 0" test $? = 0
compare_tree hello hello
ws=$(ls -d hello/hello_*)
expect_eq "hello step_1 output" "hola, mundo!" "$(cat "$ws"/step_1/GREET.hola.WORLD.mundo/step_1_GREET.hola.WORLD.mundo.out)"
expect_eq "hello script text" $'#!/bin/bash\n\necho "hello, world!"' "$(cat "$ws"/step_1/GREET.hello.WORLD.world/step_1_GREET.hello.WORLD.world.sh)"

mkdir samples && (cd samples && "$MERLIN" run --local --no-progress "$SRC/examples/hello_samples/hello_samples.yaml" >/dev/null 2>&1)
compare_tree hello_samples samples
ws=$(ls -d samples/hello_samples_*)
expect_eq "hello_samples collected 20 greetings" "20" "$(cat "$ws/step_2/step_2.out")"
expect_eq "sample 3 greeting" "hola, Dave3!" "$(cat "$ws/step_1/GREET.hola/03/greeting.txt")"

mkdir psf && (cd psf && "$MERLIN" run --local --no-progress "$SRC/tests/integration/specs/param_samples_funnel.yaml" >/dev/null 2>&1)
compare_tree psf psf/out
ws=$(ls -d psf/out/psf_*)
expect_eq "psf sample 4 lives in 1/1 (level_max_dirs 3: one digit)" "1.5 20 4 16" "$(cat "$ws/sim/N_NEW.20.X2.1.5/1/1/result.txt")"
expect_eq "psf funnel collected every sample of every combination" "10" "$(wc -l <"$ws/collect/all.txt" | tr -d ' ')"

mkdir dry && (cd dry && "$MERLIN" run --local --dry --no-progress "$SRC/tests/integration/specs/param_samples_funnel.yaml" >/dev/null 2>&1)
compare_tree psf_dry dry/out
check "dry run ran nothing" test -z "$(find dry -name '*.out' -o -name MERLIN_FINISHED)"
finish
