# session-tree: Rust core -> WebAssembly -> npm package in pkg/.
#
#   make build   toolchain check, cargo build (wasm32, release), wasm-bindgen, assemble pkg/
#   make test    cargo test, build, Node tests, conformance, browser smoke test, Vite consumer
#   make lint    rustfmt, clippy (native and wasm32, warnings denied), Biome on the JavaScript
#   make mutants cargo-mutants on the core (hours; not in make test); mutants-diff: changed lines only
#   make mutants-js  StrykerJS on the viewer's and the command's JavaScript (not in make test)
#   make demo    build and serve www/ (and pkg/ under /pkg/) on http://127.0.0.1:$(PORT)
#   make clean   remove build output and test installs

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build
.DELETE_ON_ERROR:

PORT ?= 8080
CARGO ?= cargo
NPM_INSTALL := npm install --no-audit --no-fund --loglevel=error

TARGET := wasm32-unknown-unknown
# Wasm SIMD (every current browser, Node 16.4+): the scanner skips string
# content 16 bytes a step.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS := -C target-feature=+simd128
# The workspace's cdylib, wasm/ (the crate itself builds an rlib only).
# wasm-bindgen names its output session_tree (--out-name), as the package expects.
WASM := target/$(TARGET)/release/session_tree_wasm.wasm
WASM_CRATE := -p session-tree-wasm
# The wasm-bindgen CLI must match wasm/Cargo.toml's exact pin (`wasm-bindgen = { version = "=X", .. }`).
WASM_BINDGEN_VERSION := $(shell sed -n 's/^wasm-bindgen *= *.*"=\([0-9][0-9.]*\)".*/\1/p' wasm/Cargo.toml | head -n1)

# The nodejs glue require()s the bindings' JS snippets, which wasm-bindgen writes
# as ES modules: rewrite their `export function` lines as CommonJS. A snippet
# bound with `module = "/src/wasm/x.js"` lands at snippets/<crate>/src/wasm/x.js,
# so search the whole tree; any other kind of export fails the build here rather
# than at require() time.
define cjs_snippets
	if [ -d "$(1)/snippets" ]; then \
	  find "$(1)/snippets" -type f -name '*.js' -print0 | while IFS= read -r -d '' f; do \
	    names=$$(sed -n 's/^export function \([A-Za-z0-9_]*\).*/\1/p' "$$f" | paste -sd, -); \
	    sed -i -e 's/^export function /function /' -e "\$$a module.exports = { $$names };" "$$f"; \
	    if grep -n '^export ' "$$f" >&2; then \
	      echo "$$f: only 'export function' can be rewritten for CommonJS" >&2; exit 1; fi; \
	  done; \
	fi
endef

RUST_SOURCES := Cargo.toml $(wildcard Cargo.lock) $(shell find src wasm -type f 2>/dev/null)
TEMPLATE_FILES := $(shell find pkg-template -type f 2>/dev/null)
# The viewer, copied into the package as viewer/ for `session-tree serve`.
VIEWER_FILES := $(shell find www -type f 2>/dev/null)
STAMP := pkg/.stamp

.PHONY: build test test-cargo test-crate test-rust-consumer test-cli test-tarball test-runtimes test-node-manager test-node test-readme test-reliability fuzz fuzz-rust test-conformance test-viewer bench sample test-browser test-consumer \
        demo clean toolchain test-deps chromium

build: $(STAMP)

# --- toolchain ---------------------------------------------------------------

toolchain:
	@if ! rustup target list --installed | grep -qx '$(TARGET)'; then \
	  echo "installing Rust target $(TARGET)"; rustup target add $(TARGET); fi
	@test -n "$(WASM_BINDGEN_VERSION)" || { echo 'no exact wasm-bindgen pin (wasm-bindgen = "=X") in Cargo.toml' >&2; exit 1; }
	@if [ "$$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $(WASM_BINDGEN_VERSION)" ]; then \
	  echo "installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION)"; \
	  $(CARGO) install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION) --locked --force; fi

# --- build -------------------------------------------------------------------

# cargo is cheap when nothing changed; the wasm file is only rewritten when the
# crate really rebuilt, so the steps below stay incremental.
$(WASM): $(RUST_SOURCES) | toolchain
	$(CARGO) build --release --target $(TARGET) $(WASM_CRATE)
	@touch $@

# wasm-opt from npm's binaryen (Debian's is too old for these features), kept
# under target/ at an exact version. -O3: smaller (the package's .wasm must
# stay under 150 KB gzipped) and no slower than rustc's output.
BINARYEN_VERSION := 132
WASM_OPT := target/tools/node_modules/.bin/wasm-opt
WASM_OPT_FLAGS := -O3 --enable-simd --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
  --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue

$(WASM_OPT):
	mkdir -p target/tools
	$(NPM_INSTALL) --prefix target/tools binaryen@$(BINARYEN_VERSION)
	@touch $@

$(STAMP): $(WASM) $(TEMPLATE_FILES) $(VIEWER_FILES) $(wildcard README.md) Makefile $(WASM_OPT) | toolchain
	rm -rf pkg
	mkdir -p pkg
	wasm-bindgen --target nodejs --no-typescript --experimental-reset-state-function --out-name session_tree --out-dir pkg/node $(WASM)
	$(call cjs_snippets,pkg/node)
	wasm-bindgen --target web --no-typescript --experimental-reset-state-function --out-name session_tree --out-dir pkg/web $(WASM)
	for w in pkg/node/session_tree_bg.wasm pkg/web/session_tree_bg.wasm; do \
	  $(WASM_OPT) $(WASM_OPT_FLAGS) "$$w" -o "$$w"; done
	cp -R pkg-template/. pkg/
	cp -R www pkg/viewer && rm -f pkg/viewer/screenshot*.png
	cp pkg/index.d.ts pkg/index.d.cts
	sed -e 's/^export function recovering/function recovering/' -e '$$a module.exports = { recovering };' pkg/recover.js > pkg/recover.cjs
	# session-tree/node: cli/lineage.js (the browser loads it too) as CommonJS, and its CJS types
	names=$$(sed -n 's/^export function \([A-Za-z0-9_]*\).*/\1/p' pkg/cli/lineage.js | paste -sd, -); \
	  sed -e 's/^export function /function /' -e "\$$a module.exports = { $$names };" pkg/cli/lineage.js > pkg/cli/lineage.cjs
	sed -e 's#"\.\./index\.js"#"../index.cjs"#' pkg/files/index.d.ts > pkg/files/index.d.cts
	if [ -f README.md ]; then cp README.md pkg/README.md; fi
	touch $@
	@echo "package ready in pkg/"

# --- tests -------------------------------------------------------------------

# Every node:test run: the spec report, and tests/shared/skip-reporter.mjs, which fails the run
# on a skip or todo outside its short allow-list (tests/README.md, "Skips").
NODE_TEST := node --test --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=$(CURDIR)/tests/shared/skip-reporter.mjs --test-reporter-destination=stderr

# Every suite, TEST_JOBS at a time (default 2: most suites keep one core busy, and the
# machines this runs on have two). The longest start first; each suite's output is printed
# whole when it ends (--output-sync), and a failure ends the run once the suites under way
# have ended. `make test TEST_JOBS=1` runs them one after another, in this order.
TEST_JOBS ?= 2
TEST_SUITES := test-cargo build test-conformance test-viewer test-reliability test-node test-a11y \
  test-node-manager test-serve test-cli test-browser test-rust-consumer test-tarball test-crate \
  test-consumer test-readme test-runtimes

test:
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target $(TEST_SUITES)
	@echo "all test suites passed"

# With the `serde` feature: its types' tests and doctests too (lint checks
# the build without it).
test-cargo:
	$(CARGO) test --features serde

# A Rust tool built on the crate's documented API (tests/rust-consumer/), and
# every program in examples/, over a folder pi writes; compared with pi and
# the JS package.
test-rust-consumer: test-deps
	$(NODE_TEST) tests/rust-consumer/

# The crate as a dependent sees it: its MSRV, `cargo package`, and a fresh
# project that builds the packaged .crate without a cdylib or serde.
test-crate:
	CARGO=$(CARGO) nice tools/check-crate.sh

# The one npm root of every JavaScript suite (tests/README.md): pi 1.6.0 for
# the comparisons, playwright-core, vite, typescript, and
# `session-tree` itself, linked from pkg/ by a file: dependency.
tests/node_modules/.package-lock.json: tests/package.json tests/package-lock.json | $(STAMP)
	cd tests && $(NPM_INSTALL)
	@touch $@

test-deps: $(STAMP) tests/node_modules/.package-lock.json

chromium:
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

# tests/shared/ holds the suites' helpers and the test of the pi loader.
test-node: test-deps
	$(NODE_TEST) tests/node/ tests/shared/

# A test build that can force a trap (`__forceTrap`), to test recovery from one.
TRAP_WASM := target/trap/$(TARGET)/release/session_tree_wasm.wasm
TRAP_PKG := target/trap-pkg/node.cjs

$(TRAP_PKG): $(RUST_SOURCES) $(TEMPLATE_FILES) Makefile | toolchain
	$(CARGO) build --release --target $(TARGET) $(WASM_CRATE) --features test-trap --target-dir target/trap
	rm -rf target/trap-pkg && cp -R pkg-template target/trap-pkg
	sed -e 's/^export function recovering/function recovering/' -e '$$a module.exports = { recovering };' pkg-template/recover.js > target/trap-pkg/recover.cjs
	wasm-bindgen --target nodejs --no-typescript --experimental-reset-state-function --out-name session_tree --out-dir target/trap-pkg/node $(TRAP_WASM)
	$(call cjs_snippets,target/trap-pkg/node)

test-reliability: test-deps $(TRAP_PKG)
	$(NODE_TEST) tests/reliability/

# Longer property runs than `make test` does.
fuzz: fuzz-rust test-deps $(TRAP_PKG)
	FUZZ_COUNT=$${FUZZ_COUNT:-20000} $(NODE_TEST) tests/reliability/

# The `session-tree` command (pkg/bin, pkg/cli), run in-process on fake streams.
# The Rust properties only: the core's, and the crate API's entry points
# against each other (tests/hunt_api.rs), far longer than `cargo test` runs them.
fuzz-rust:
	PROPTEST_CASES=$${PROPTEST_CASES:-20000} $(CARGO) test --release --lib tests::properties
	PROPTEST_CASES=$${PROPTEST_CASES:-3000} $(CARGO) test --release --test hunt_api

test-cli: test-deps
	$(NODE_TEST) tests/cli/

# `npm pack` of pkg/, installed from the tarball into a scratch project under
# the system's temporary folder: ESM, CJS, tsc, publint, attw, the command.
test-tarball: test-deps
	$(NODE_TEST) tests/tarball/

# The smoke suite under Bun and Deno, both from npm (tests/package.json).
test-runtimes: test-deps
	$(NODE_TEST) tests/runtimes/

# session-tree/node's SessionManager: pi's rules, injected write failures,
# the lock across processes, SIGKILL mid-append (KILL_COUNT, KILL_SEED), under
# Node, Bun and Deno.
test-node-manager: test-deps
	$(NODE_TEST) tests/node-manager/

test-readme: test-deps chromium
	$(NODE_TEST) tests/readme/

# One file at a time: generated.test.js and broken.test.js run worker pools of their own.
# harness.test.js runs the comparisons on deliberately wrong implementations: each must fail.
test-conformance: test-deps
	cd tests && $(NODE_TEST) --test-concurrency=1 conformance/scenarios.test.js conformance/broken.test.js \
	  conformance/generated.test.js conformance/session.test.js conformance/list.test.js \
	  conformance/harness.test.js

test-browser: test-deps chromium
	$(NODE_TEST) tests/browser/

test-consumer: test-deps chromium
	$(NODE_TEST) tests/consumer/

test-viewer: test-deps chromium
	$(NODE_TEST) tests/viewer/

# Rewrites www/sample.jsonl, the demo's embedded session (its compaction checkpoint comes from pi 1.6.0).
sample: test-deps
	node tests/viewer/gen-sample.mjs

# The side-by-side benchmark against pi (tests/bench/README.md); numbers go
# into the README, never into a test.
bench: test-deps
	cd tests && node --expose-gc bench/bench.mjs
	cd tests && node --expose-gc bench/manager.mjs

# Sessions of a GB and more against issue 23's targets and pi (tests/bench/README.md):
# about 25 minutes on a busy 2-core machine; up to ~5 GB in the temporary folder,
# deleted after.
.PHONY: bench-large
bench-large: test-deps chromium
	cd tests && node bench/large.mjs

# `session-tree serve` (Playwright over a generated folder, raw HTTP for its
# security rules) and the static page's "Open folder…".
.PHONY: test-serve
test-serve: test-deps chromium
	$(NODE_TEST) tests/serve/

# WCAG 2.1 A/AA (axe-core) on every state of the viewer, the shared file and
# `serve`; the keyboard alone; a phone (tests/a11y/).
.PHONY: test-a11y
test-a11y: test-deps chromium
	$(NODE_TEST) tests/a11y/

# --- mutation testing (not in `make test`: hours on two cores) -------------

# cargo-mutants over the core: all of src/ but the wasm bindings
# (.cargo/mutants.toml), scored by the crate's unit tests alone, module by
# module in two passes (tools/mutants.sh says how; about 2.5 hours on two
# cores). MUTANTS_MODULES names some modules (`MUTANTS_MODULES="tree
# context"`); the default is all. Reports go to
# target/mutation/all/<module>/{fast,full}/mutants.out (caught.txt,
# missed.txt, timeout.txt, unviable.txt), and the table of scores is printed
# at the end (tools/mutants-report.mjs).
# `make mutants-diff` tests only the mutants in lines changed since
# MUTANTS_BASE (default main, uncommitted changes included): minutes, not
# hours. MUTANTS_ARGS adds cargo-mutants flags to it.
.PHONY: mutants mutants-diff mutants-tool
CARGO_MUTANTS_VERSION := 27.1.0
MUTANTS_JOBS ?= 2
MUTANTS_MODULES ?=
MUTANTS_ARGS ?=
MUTANTS_BASE ?= main

mutants-tool:
	@if [ "$$($(CARGO) mutants --version 2>/dev/null || true)" != "cargo-mutants $(CARGO_MUTANTS_VERSION)" ]; then \
	  echo "installing cargo-mutants $(CARGO_MUTANTS_VERSION)"; \
	  $(CARGO) install cargo-mutants --version $(CARGO_MUTANTS_VERSION) --locked --force; fi

mutants: mutants-tool
	MUTANTS_JOBS=$(MUTANTS_JOBS) CARGO=$(CARGO) sh tools/mutants.sh $(MUTANTS_MODULES)

mutants-diff: mutants-tool
	mkdir -p target/mutation
	git diff "$$(git merge-base $(MUTANTS_BASE) HEAD)" -- src > target/mutation/changes.diff
	@if [ -s target/mutation/changes.diff ]; then \
	  nice $(CARGO) mutants -j $(MUTANTS_JOBS) --in-diff target/mutation/changes.diff --output target/mutation/diff $(MUTANTS_ARGS); \
	else echo "no change under src/ since $(MUTANTS_BASE)"; fi

# StrykerJS 10.1.1 over the JavaScript (tools/mutants-js/: installed there on demand, with
# the Node 22 it needs; the tests still run on the system's Node), one group at a time
# (tools/mutants-js/groups.mjs): www (the viewer's DOM-free modules), cli
# (pkg/cli/tree-view.js, lineage.js), files (pkg/files/, hours: its test takes 70 s). Each
# mutant runs only the group's fast test files that import the mutated file.
# MUTANTS_JS_MUTATE narrows the files (`make mutants-js MUTANTS_JS_GROUPS=www
# MUTANTS_JS_MUTATE=www/model.js`); MUTANTS_JS_JOBS sandboxes at once (default 2). Reports:
# target/mutants-js/<group>[-<file>]/mutation.{json,html}; `node tools/mutants-js/report.mjs
# <report>` lists the survivors, tools/mutants-js/both.mjs those two runs both left alive.
.PHONY: mutants-js
STRYKER_JS := tools/mutants-js/node_modules/@stryker-mutator/core/bin/stryker.js
MUTANTS_JS_GROUPS ?= www cli
MUTANTS_JS_MUTATE ?=
MUTANTS_JS_JOBS ?= 2

$(STRYKER_JS): tools/mutants-js/package.json
	cd tools/mutants-js && $(NPM_INSTALL)
	@touch $@

mutants-js: test-deps $(STRYKER_JS)
	for g in $(MUTANTS_JS_GROUPS); do \
	  MUTANTS_JS_MUTATE="$(MUTANTS_JS_MUTATE)" MUTANTS_JS_JOBS=$(MUTANTS_JS_JOBS) nice \
	    tools/mutants-js/node_modules/.bin/node $(STRYKER_JS) run tools/mutants-js/$$g.conf.mjs; done

# --- lint --------------------------------------------------------------------

.PHONY: lint lint-rust lint-js

# Biome at an exact version under target/tools, like binaryen; its config is
# biome.json (www/, pkg-template/, tests/, tools/).
BIOME_VERSION := 2.6.8
BIOME := target/tools/biome/node_modules/.bin/biome

$(BIOME):
	mkdir -p target/tools/biome
	$(NPM_INSTALL) --prefix target/tools/biome @biomejs/biome@$(BIOME_VERSION)
	@touch $@

lint: lint-rust lint-js

lint-rust:
	@rustup target list --installed | grep -qx '$(TARGET)' || rustup target add $(TARGET)
	@for c in rustfmt clippy; do \
	  rustup component list --installed 2>/dev/null | grep -q "^$$c" || rustup component add $$c; done
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) clippy --all-targets --features serde -- -D warnings
	$(CARGO) clippy --workspace --lib --target $(TARGET) -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --quiet
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --quiet --features serde

lint-js: $(BIOME)
	$(BIOME) check .

# --- demo --------------------------------------------------------------------

demo: build
	node tools/static-server.mjs --root www --mount /pkg=pkg --port $(PORT)

clean:
	rm -rf pkg tests/node_modules tests/consumer/vite-app/dist tests/conformance/node_modules tests/bench/node_modules
	$(CARGO) clean
