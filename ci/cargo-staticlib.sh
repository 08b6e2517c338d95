#!/usr/bin/env bash
# Run by ninja inside the Mesa build: builds the agx16-gallium staticlib with cargo and copies it to $1.
# AGX16_MESA_SRC/AGX16_MESA_BUILD come from the meson custom_target's env.
set -euo pipefail
out=$1
root=$(cd "$(dirname "$0")/.." && pwd -P)
# A target dir of its own: workspace builds may unify other features into agx16-mesa-sys (e.g.
# `link-mesa-static` for standalone tests), which must never reach the staticlib inside libgallium.
target="$root/target/mesa/cargo"
profile=${AGX16_CARGO_PROFILE:-dev}
case "$profile" in
dev) dir=debug ;;
*) dir=$profile ;;
esac
cargo build --quiet --manifest-path "$root/Cargo.toml" -p agx16-gallium --lib \
    --profile "$profile" --target-dir "$target"
lib="$target/$dir/libagx16_gallium.a"
if ! cmp -s "$lib" "$out"; then
    cp "$lib" "$out"
fi
