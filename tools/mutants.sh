#!/bin/sh
# `make mutants`: cargo-mutants over every core module, scored by the
# crate's unit tests (`cargo test --lib`), in two passes per module so that a
# whole run takes about two and a half hours on two cores instead of seven:
#
# 1. Each mutant is built at opt-level 0 (an incremental rebuild of the one
#    mutated function takes 1 to 2 s, against 10 to 15 s with the
#    optimizations of `[profile.mutants]`) and tested by its own module's unit
#    tests, which take about a second there. What they catch, `cargo test`
#    catches too.
# 2. What the first pass missed is tested again with every unit test (the
#    property suites of `src/tests/` included), built with `[profile.mutants]`,
#    where they take seconds instead of a minute. What is missed then is
#    missed by `cargo test --lib`.
#
# Reports: target/mutation/all/<module>/{fast,full}/mutants.out; the table of
# scores: `node tools/mutants-report.mjs target/mutation/all`.
#
# Usage: tools/mutants.sh [module ...]   (default: every module below)
# Environment: MUTANTS_JOBS (default 2), MUTANTS_OUT (default
# target/mutation/all), CARGO (default cargo).
set -eu

CARGO=${CARGO:-cargo}
JOBS=${MUTANTS_JOBS:-2}
OUT=${MUTANTS_OUT:-target/mutation/all}

# module: the files it is made of, then the test filters that run its own
# unit tests (a module's tests live under its path; a few in `src/tests/`).
files_of() {
  case $1 in
    diagnostics) echo "src/diagnostics/mod.rs" ;;
    migrate) echo "src/migrate.rs" ;;
    migrate-stream) echo "src/migrate/stream.rs" ;;
    session) echo "src/session/mod.rs src/session/branch.rs src/session/source.rs" ;;
    *) echo "src/$1.rs" ;;
  esac
}
filters_of() {
  case $1 in
    migrate-stream) echo "migrate:: tests::migrate_stream::" ;;
    types) echo "types:: tests::serde_roundtrip::" ;;
    *) echo "$1::" ;;
  esac
}
ALL="ascii context diagnostics document entry file folder ids index json migrate
migrate-stream order parse pieces preview scan session session_info system time
tree types usage"

# A mutant's name as a regex that matches it alone.
as_regex() {
  sed -e 's/[][\\.+*?(){}|^$]/\\&/g' -e 's/^/^/' -e 's/$/$/'
}

run_module() {
  module=$1
  dir=$OUT/$module
  rm -rf "$dir"
  mkdir -p "$dir"
  set --
  for f in $(files_of "$module"); do set -- "$@" --file "$f"; done
  echo "== $module: first pass, its own unit tests at opt-level 0"
  CARGO_PROFILE_MUTANTS_OPT_LEVEL=0 nice "$CARGO" mutants -j "$JOBS" "$@" \
    --cargo-test-arg=--lib --minimum-test-timeout 10 --output "$dir/fast" \
    -- -- $(filters_of "$module") || true
  missed=$dir/fast/mutants.out/missed.txt
  if [ -s "$missed" ]; then
    echo "== $module: $(wc -l < "$missed") missed; again with every unit test"
    while IFS= read -r name; do set -- "$@" -F "$name"; done <<NAMES
$(as_regex < "$missed")
NAMES
    nice "$CARGO" mutants -j "$JOBS" "$@" --cargo-test-arg=--lib \
      --minimum-test-timeout 20 --output "$dir/full" || true
  fi
}

[ $# -gt 0 ] || set -- $ALL
for module in "$@"; do
  case " $(echo $ALL) " in
    *" $module "*) ;;
    *) echo "unknown module: $module (one of: $(echo $ALL))" >&2; exit 2 ;;
  esac
done
for module in "$@"; do run_module "$module"; done
node tools/mutants-report.mjs "$OUT"
