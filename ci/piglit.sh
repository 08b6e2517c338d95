#!/usr/bin/env bash
# ./x piglit [gles3|gles2] [softpipe|agx16|both]: runs a slice of Debian's piglit (gles3, the default:
# ci/piglit/include.txt; gles2: ci/piglit/include-gles2.txt) through deqp-runner's piglit-runner on
# softpipe and on agx16, from the same Mesa build, and compares each with its baseline in ci/piglit/.
# Before and after each run the project's agx16-glinfo, started with the run's exact environment, must
# report the expected GL_RENDERER: a silent software fallback on the agx16 run is an error. Results and a
# summary land in target/piglit/ (gles3) or target/piglit-gles2/. A sweep: not part of ./x test.
set -euo pipefail
: "${AGX16_ROOT:?run this through ./x}" "${AGX16_MESA_BUILD:?}" "${AGX16_SHIM:?}" "${CARGO_TARGET_DIR:?}"
slice=gles3
runs=(softpipe agx16)
for arg in "$@"; do
    case "$arg" in
    gles3 | gles2) slice=$arg ;;
    softpipe | agx16) runs=("$arg") ;;
    both) runs=(softpipe agx16) ;;
    *)
        echo "usage: ./x piglit [gles3|gles2] [softpipe|agx16|both]" >&2
        exit 2
        ;;
    esac
done
# File and directory suffix of the slice: the GLES 3 slice (the one the project tracks) has none.
sfx=""
[[ $slice == gles3 ]] || sfx="-$slice"

cfg="$AGX16_ROOT/ci/piglit"
tools="$AGX16_ROOT/target/tools"
runner="$tools/bin/piglit-runner"
runner_version=0.24.0 # deqp-runner on crates.io; --locked uses its published Cargo.lock
glinfo="$CARGO_TARGET_DIR/debug/agx16-glinfo"
# 2 cores: one test process per core. Timeout: the slowest test on softpipe takes a few seconds; a minute
# only catches hangs.
jobs=${AGX16_PIGLIT_JOBS:-2}
timeout=${AGX16_PIGLIT_TIMEOUT:-60}
out="$AGX16_ROOT/target/piglit$sfx"

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi

# 1. Tools: Debian's piglit (bookworm main has 0~git20220119-124bca3c9-1) and the pinned piglit-runner.
if [[ "$(dpkg-query -W -f='${Status}' piglit 2>/dev/null)" != "install ok installed" ]]; then
    echo "piglit: installing Debian's piglit package"
    "${sudo[@]}" apt-get update
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends piglit
fi
if ! "$runner" --version 2>/dev/null | grep -qF " $runner_version"; then
    echo "piglit: installing deqp-runner $runner_version into $tools"
    cargo install --locked --version "$runner_version" --root "$tools" deqp-runner
fi
if [[ ! -x "$glinfo" ]]; then
    echo "piglit: $glinfo is missing; ./x build makes it" >&2
    exit 1
fi
piglit_version=$(dpkg-query -W -f='${Version}' piglit)
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
pigdir="/usr/lib/$arch/piglit"

# 2. A private copy of what the runs load (Mesa's libEGL, libGLESv2 and libgallium, the shim, agx16-glinfo):
# other sessions rebuild target/ while a sweep runs, and a library relinked under a running sweep turns
# into crashes that are not the driver's. What was built from is recorded: the tree may hold uncommitted
# work of other sessions.
lib="$out/lib"
rm -rf "$lib" && mkdir -p "$lib"
cp -L --preserve=timestamps "$AGX16_MESA_BUILD/src/egl/libEGL.so.1" "$AGX16_MESA_BUILD/src/mapi/es2api/libGLESv2.so.2" \
    "${AGX16_GALLIUM_DIR:-$AGX16_MESA_BUILD/src/gallium/targets/dri}"/libgallium-*.so "$lib/"
cp -L --preserve=timestamps "$AGX16_SHIM" "$lib/libagx16_drm_shim.so"
cp -L "$glinfo" "$lib/agx16-glinfo"
shim="$lib/libagx16_drm_shim.so"
glinfo="$lib/agx16-glinfo"
tree=$(git -C "$AGX16_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
built=$(date -u -r "$(ls "$lib"/libgallium-*.so | head -n1)" +%Y-%m-%dT%H:%MZ)

# The environment every test process gets. Only the copied libEGL/libGLESv2 (not glvnd) are on the library
# path, so piglit's waffle can load neither the system Mesa nor a half-written build.
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PIGLIT_PLATFORM=surfaceless_egl EGL_PLATFORM=surfaceless
# Every shader is compiled in every run (no hits from an earlier build's cache).
export MESA_SHADER_CACHE_DISABLE=true
unset LIBGL_ALWAYS_SOFTWARE LD_PRELOAD
run_env() { # renderer -> the variables that select it, one KEY=VALUE per line
    case "$1" in
    softpipe) echo LIBGL_ALWAYS_SOFTWARE=1 ;;
    agx16) echo "LD_PRELOAD=$shim" ;;
    esac
}

# Prints GL_RENDERER and GL_VERSION as agx16-glinfo sees them with the run's environment; fails unless the
# renderer is the expected one.
check_renderer() { # renderer
    local r=$1 log env_vars
    mapfile -t env_vars < <(run_env "$r")
    log=$(env "${env_vars[@]}" "$glinfo" --any-renderer 2>&1) || {
        echo "piglit: agx16-glinfo failed in the $r environment:" >&2
        echo "$log" >&2
        return 1
    }
    local renderer version
    renderer=$(sed -n 's/^GL_RENDERER: //p' <<<"$log")
    version=$(sed -n 's/^GL_VERSION: //p' <<<"$log")
    case "$r" in
    softpipe) [[ "$renderer" == softpipe ]] ;;
    agx16) [[ "$renderer" == *agx16* ]] ;;
    esac || {
        echo "piglit: the $r environment gives GL_RENDERER '$renderer' (a fallback?), refusing its results" >&2
        return 1
    }
    echo "$renderer|$version"
}

includes=()
while read -r re; do
    [[ -z "$re" || "$re" == \#* ]] || includes+=(--include-tests "$re")
done <"$cfg/include$sfx.txt"

mkdir -p "$out"
status=0
for r in "${runs[@]}"; do
    info=$(check_renderer "$r") || exit 1
    rm -rf "${out:?}/$r"
    echo "piglit: $r: GL_RENDERER '${info%%|*}', GL_VERSION '${info#*|}'"
    mapfile -t env_vars < <(run_env "$r")
    env_args=()
    for v in "${env_vars[@]}"; do env_args+=(--env "$v"); done
    baseline=()
    [[ -s "$cfg/$r$sfx-fails.txt" ]] && baseline=(--baseline "$cfg/$r$sfx-fails.txt")
    start=$(date +%s)
    rc=0
    "$runner" run --piglit-folder "$pigdir" --profile quick --process-isolation \
        --jobs "$jobs" --timeout "$timeout" --skips "$cfg/skips.txt" --flakes "$cfg/flakes.txt" "${includes[@]}" \
        "${env_args[@]}" "${baseline[@]}" --output "$out/$r" --summary-limit 0 || rc=$?
    wall=$(($(date +%s) - start))
    # The renderer must still be the same after the run.
    after=$(check_renderer "$r") || exit 1
    [[ "$after" == "$info" ]] || {
        echo "piglit: $r: renderer changed during the run ('$info' -> '$after')" >&2
        exit 1
    }
    [[ $rc -eq 0 ]] || status=1
    {
        echo "renderer=${info%%|*}"
        echo "gl_version=${info#*|}"
        echo "wall_seconds=$wall"
        echo "runner_exit=$rc"
        echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
        echo "piglit=$piglit_version"
        echo "deqp_runner=$runner_version"
        echo "jobs=$jobs"
        echo "timeout=$timeout"
        echo "slice=$slice"
        echo "tree=$tree"
        echo "built=$built"
    } >"$out/$r/run.env"
    echo "piglit: $slice on $r: $(cut -d, -f2 "$out/$r/results.csv" | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')wall ${wall}s, runner exit $rc"
done
"$cfg/summary.sh" "$out" "$sfx" >"$out/results.md"
echo "piglit: summary in $out/results.md; unexpected results in $out/*/failures.csv"
exit "$status"
