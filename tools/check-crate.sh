#!/usr/bin/env bash
# The crate as a dependent sees it (`make test-crate`):
#  1. its MSRV (rust-version in Cargo.toml): `cargo +MSRV check` of the library,
#     with the toolchain installed (minimal profile) when missing;
#  2. `cargo package` succeeds (it also builds the packaged sources alone);
#  3. a fresh project that depends on the packaged .crate builds, and compiles
#     neither a cdylib nor serde (nor wasm-bindgen);
#  4. the same project builds with the crate's `serde` feature, on the MSRV too.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo=${CARGO:-cargo}

msrv=$(sed -n 's/^rust-version *= *"\([0-9.]*\)".*/\1/p' Cargo.toml | head -n1)
test -n "$msrv" || { echo "Cargo.toml states no rust-version" >&2; exit 1; }
if ! rustup run "$msrv" rustc --version >/dev/null 2>&1; then
  echo "installing Rust $msrv (the crate's MSRV)"
  rustup toolchain install "$msrv" --profile minimal
fi
echo "MSRV: cargo +$msrv check --lib (and with --features serde)"
$cargo "+$msrv" check --quiet --lib -p session-tree --target-dir target/msrv
$cargo "+$msrv" check --quiet --lib -p session-tree --features serde --target-dir target/msrv

echo "cargo package"
$cargo package --quiet --allow-dirty -p session-tree
version=$(sed -n 's/^version *= *"\([^"]*\)".*/\1/p' Cargo.toml | head -n1)
crate="target/package/session-tree-$version.crate"
test -f "$crate" || { echo "no $crate" >&2; exit 1; }

# The scratch project: the .crate unpacked next to it, depended on by path.
scratch=target/crate-check
rm -rf "$scratch" && mkdir -p "$scratch/src"
tar -xzf "$crate" -C "$scratch"
cat > "$scratch/Cargo.toml" <<TOML
[package]
name = "crate-check"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
session-tree = { path = "session-tree-$version" }

[workspace]
TOML
cat > "$scratch/src/main.rs" <<'RS'
fn main() {
    let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n";
    let session = session_tree::SessionFile::from_str(text).expect("opens");
    println!("{} entries", session.len());
}
RS
# Its own lock file, from the registry cache when offline.
(cd "$scratch" && $cargo build --quiet --target-dir target 2>&1)
(cd "$scratch" && ./target/debug/crate-check)
deps=$(cd "$scratch" && $cargo tree --prefix none -e normal | sed 's/ .*//' | sort -u)
for banned in serde serde_json serde_derive wasm-bindgen js-sys console_error_panic_hook; do
  if grep -qx "$banned" <<<"$deps"; then
    echo "the packaged crate pulls in $banned:" >&2; echo "$deps" >&2; exit 1
  fi
done
if find "$scratch/target" -name '*.so' -o -name '*.wasm' -o -name '*.dylib' | grep -q .; then
  echo "building the packaged crate produced a cdylib:" >&2
  find "$scratch/target" -name '*.so' -o -name '*.wasm' >&2; exit 1
fi

# The `serde` feature: the owned types, read and written back by the packaged crate.
cat > "$scratch/src/main.rs" <<'RS'
fn main() {
    let line = r#"{"type":"label","id":"l","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","targetId":"a","label":"x","more":[1]}"#;
    let entry: session_tree::types::FileEntry = serde_json::from_str(line).expect("reads");
    let back: serde_json::Value = serde_json::to_value(&entry).expect("writes");
    assert_eq!(back, serde_json::from_str::<serde_json::Value>(line).unwrap());
    println!("serde feature: {}", entry.kind().unwrap_or_default());
}
RS
sed -i 's|^session-tree = { path = "\(.*\)" }$|session-tree = { path = "\1", features = ["serde"] }\nserde_json = "1"|' "$scratch/Cargo.toml"
(cd "$scratch" && $cargo build --quiet --target-dir target 2>&1)
(cd "$scratch" && ./target/debug/crate-check)
# (The compile above is the proof; this says so if the feature ever became a no-op.)
(cd "$scratch" && $cargo tree --prefix none -e normal -i serde_json 2>/dev/null) | grep -q '^session-tree ' || {
  echo "the serde feature did not bring in serde_json" >&2; exit 1
}
echo "the packaged crate builds alone on Rust $msrv+, without a cdylib or serde (and with its serde feature); its dependencies: $(echo $deps | tr '\n' ' ')"
