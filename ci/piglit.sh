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
# 2 cores: one test process per core. Timeout: the slowest test on softpipe takes a few seconds; a minute
# only catches hangs.
jobs=${AGX16_PIGLIT_JOBS:-2}
timeout=${AGX16_PIGLIT_TIMEOUT:-60}
out="$AGX16_ROOT/target/piglit$sfx"
# shellcheck source=ci/sweep-env.sh
source "$AGX16_ROOT/ci/sweep-env.sh"

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi

# 1. Tools: Debian's piglit (bookworm main has 0~git20220119-124bca3c9-1) and the pinned piglit-runner.
if [[ "$(dpkg-query -W -f='${Status}' piglit 2>/dev/null)" != "install ok installed" ]]; then
    echo "piglit: installing Debian's piglit package"
    "${sudo[@]}" apt-get update
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends piglit
fi
install_runner "$tools"
piglit_version=$(dpkg-query -W -f='${Version}' piglit)
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
pigdir="/usr/lib/$arch/piglit"

# 2. A private copy of what the runs load, and the environment every test process gets.
sweep_stage_libs "$out/lib"
export PIGLIT_PLATFORM=surfaceless_egl

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
    runner_env_args "$r"
    baseline=()
    [[ -s "$cfg/$r$sfx-fails.txt" ]] && baseline=(--baseline "$cfg/$r$sfx-fails.txt")
    start=$(date +%s)
    rc=0
    "$runner" run --piglit-folder "$pigdir" --profile quick --process-isolation \
        --jobs "$jobs" --timeout "$timeout" --skips "$cfg/skips.txt" --flakes "$cfg/flakes.txt" "${includes[@]}" \
        "${env_args[@]}" "${baseline[@]}" --output "$out/$r" --summary-limit 0 || rc=$?
    wall=$(($(date +%s) - start))
    # The renderer must still be the same after the run.
    recheck_renderer "$r" "$info" piglit || exit 1
    [[ $rc -eq 0 ]] || status=1
    {
        run_env_common "$info" "$wall" "$rc"
        echo "piglit=$piglit_version"
        echo "jobs=$jobs"
        echo "timeout=$timeout"
        echo "slice=$slice"
    } >"$out/$r/run.env"
    echo "piglit: $slice on $r: $(cut -d, -f2 "$out/$r/results.csv" | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')wall ${wall}s, runner exit $rc"
done
"$cfg/summary.sh" "$out" "$sfx" >"$out/results.md"
echo "piglit: summary in $out/results.md; unexpected results in $out/*/failures.csv"
exit "$status"
