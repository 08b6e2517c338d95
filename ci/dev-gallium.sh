#!/usr/bin/env bash
# Developer tool: a libgallium with THIS checkout's driver, linked from the shared Mesa build's objects,
# so several checkouts (git worktrees) can run end-to-end tests without a Mesa build each.
#   ci/dev-gallium.sh            -> prints the directory holding the relinked libgallium
# Use it with `AGX16_GALLIUM_DIR=<that dir>` (tests/src/lib.rs and ci/piglit.sh put it first on the
# library path). Needs AGX16_MESA_SRC/AGX16_MESA_BUILD of an existing Mesa build (./x build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)
build=${AGX16_MESA_BUILD:?set AGX16_MESA_BUILD to an existing Mesa build}
: "${AGX16_MESA_SRC:?set AGX16_MESA_SRC to the source tree of that build}"
target=${CARGO_TARGET_DIR:-$root/target}/gallium-dev
mkdir -p "$target/cargo"
# Same flags as ci/cargo-staticlib.sh, a target dir of our own (no feature unification).
cargo build --quiet --manifest-path "$root/Cargo.toml" -p agx16-gallium --lib --target-dir "$target/cargo"
lib="$target/cargo/debug/libagx16_gallium.a"
so=src/gallium/targets/dri/libgallium-25.0.7.so
# The shared build's own link line with our staticlib and output swapped in.
cmd=$(ninja -C "$build" -t commands "$so" | tail -n 1 |
    sed -e "s| -o $so | -o $target/libgallium-25.0.7.so |" \
        -e "s| src/gallium/drivers/agx16/libagx16_gallium.a | $lib |")
[[ "$cmd" == *" -o $target/libgallium-25.0.7.so "* && "$cmd" == *" $lib "* ]] || {
    echo "dev-gallium: unexpected link line for $so in $build" >&2
    exit 1
}
(cd "$build" && eval "$cmd")
echo "$target"
