#!/usr/bin/env bash
# Fetches the pinned Mesa (Debian's source package), overlays agx16, configures and builds it under
# target/mesa. Every step is skipped when its inputs have not changed. MESA_SRC=/path uses another
# Mesa 25.0.x tree instead of the Debian package.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)
mesa_dir="$root/target/mesa"
tree="$mesa_dir/tree"
build="$mesa_dir/build"
patch_file="$root/ci/mesa-agx16.patch"
export PATH="$root/target/venv/bin:$PATH"

deb_version="25.0.7-2+deb13u1"
orig="mesa_25.0.7.orig.tar.xz"
# Checksum of the upstream tarball as listed in the package's signed .dsc (Checksums-Sha256).
orig_sha256="592272df3cf01e85e7db300c449df5061092574d099da275d19e97ef0510f8a6"

say() { echo "mesa: $*"; }
key_of() { cat "$@" 2>/dev/null | sha256sum | cut -c1-16; }

# 1. A pristine tree.
if [[ -n "${MESA_SRC:-}" ]]; then
    pristine=$(cd "$MESA_SRC" && pwd -P)
    if ! grep -qE '^25\.0\.' "$pristine/VERSION" 2>/dev/null; then
        echo "mesa: MESA_SRC=$MESA_SRC is not a Mesa 25.0.x tree (VERSION says '$(cat "$pristine/VERSION" 2>/dev/null)')" >&2
        exit 1
    fi
else
    pristine="$mesa_dir/pristine"
    if [[ ! -e "$pristine/.agx16-unpacked" ]]; then
        mkdir -p "$mesa_dir/dl"
        say "fetching source package mesa=$deb_version"
        (cd "$mesa_dir/dl" && apt-get source --download-only "mesa=$deb_version")
        (cd "$mesa_dir/dl" && echo "$orig_sha256  $orig" | sha256sum -c --quiet -) || {
            echo "mesa: $orig does not have the pinned sha256 $orig_sha256" >&2
            exit 1
        }
        rm -rf "$pristine"
        dpkg-source -x --no-check "$mesa_dir/dl/mesa_${deb_version}.dsc" "$pristine" >/dev/null
        touch "$pristine/.agx16-unpacked"
    fi
fi

# 2. The working tree: pristine + registration patch + our repo as src/gallium/drivers/agx16.
tree_key=$( (echo "$pristine"; cat "$patch_file") | sha256sum | cut -c1-16)
if [[ "$(cat "$tree/.agx16-key" 2>/dev/null)" != "$tree_key" ]]; then
    say "preparing the patched tree"
    rm -rf "$tree"
    mkdir -p "$tree"
    # tar keeps mtimes, so an existing build only recompiles what the patch touched.
    tar -C "$pristine" --exclude=.git -cf - . | tar -C "$tree" -xf -
    patch -s -p1 -d "$tree" <"$patch_file"
    ln -s "$root" "$tree/src/gallium/drivers/agx16"
    echo "$tree_key" >"$tree/.agx16-key"
fi

# 3. Configure: EGL surfaceless, GLES 2/3 and desktop GL, no LLVM, softpipe as the reference renderer.
#    The X11 platform and GLX (libGL) only serve Firefox's start-up GPU probe, which ci/browser.sh runs
#    on a private Xvfb; everything else names the surfaceless platform (docs/browsers.md).
options=(
    -Dbuildtype=debugoptimized -Dplatforms=x11 -Degl=enabled -Dglx=dri -Dgbm=disabled
    -Dopengl=true -Dgles1=disabled -Dgles2=enabled -Dglvnd=disabled -Dllvm=disabled
    -Dgallium-drivers=softpipe,agx16 -Dvulkan-drivers= -Dgallium-va=disabled
    -Dgallium-vdpau=disabled -Dgallium-xa=disabled -Dgallium-nine=false -Dgallium-opencl=disabled
    -Dgallium-rusticl=false -Dvalgrind=disabled -Dlibunwind=disabled -Dlmsensors=disabled
    -Dbuild-tests=false -Dtools= -Dvideo-codecs= -Dzstd=enabled
)
options_key=$(printf '%s\n' "$tree" "${options[@]}" | sha256sum | cut -c1-16)
if [[ ! -e "$build/build.ninja" ]]; then
    say "configuring"
    meson setup "$build" "$tree" "${options[@]}" >"$mesa_dir/configure.log" || {
        tail -n 30 "$mesa_dir/configure.log" >&2
        exit 1
    }
elif [[ "$(cat "$build/.agx16-options" 2>/dev/null)" != "$options_key" ]]; then
    say "reconfiguring"
    meson setup --reconfigure "$build" "$tree" "${options[@]}" >"$mesa_dir/configure.log"
fi
echo "$options_key" >"$build/.agx16-options"

# 4. Build (ninja and cargo both skip what is up to date).
say "building in $build"
ninja -C "$build" -j "$(nproc)"
