#!/usr/bin/env bash
# ./x deqp [agx16|softpipe|both] [--fraction N | --caselist FILE] [--include REGEX]... [--jobs N]
#          [--timeout SECONDS] [--no-ms4]
# Runs dEQP-GLES3 through deqp-runner on agx16 and/or softpipe (default both, one after the other) from the
# same Mesa build, with the suite of ci/deqp/gles3.toml, and compares each run with its baseline in
# ci/deqp/ (<renderer>-fails.csv, -flakes.txt, -skips.txt). A result that differs from the baseline fails
# the task. The deqp-gles3 binary is the user's: DEQP_GLES3=/path/to/modules/gles3/deqp-gles3, built from a
# VK-GL-CTS checkout outside this repository (ci/deqp/README.md). The case list is --caselist, else
# AGX16_DEQP_CASELIST, else ../shared/deqp/gles3-main.txt (the mustpass). Output: target/deqp/<renderer>/
# (results.csv, failures.csv, logs of unexpected results) and target/deqp/results.md. On agx16 the
# mustpass's multisample configuration (ci/deqp/gles3-ms4.toml: its groups again on a 4-sample window
# surface, results prefixed "ms4-") runs in the same suite unless --no-ms4.
set -euo pipefail
: "${AGX16_ROOT:?run this through ./x}" "${AGX16_MESA_BUILD:?}" "${AGX16_SHIM:?}" "${CARGO_TARGET_DIR:?}"
usage="usage: ./x deqp [agx16|softpipe|both] [--fraction N | --caselist FILE] [--include REGEX]... [--jobs N] [--timeout S] [--no-ms4]"
runs=(agx16 softpipe)
fraction=1
caselist=${AGX16_DEQP_CASELIST:-}
includes=()
jobs=$(nproc)
timeout=${AGX16_DEQP_TIMEOUT:-120}
ms4=1
while [[ $# -gt 0 ]]; do
    case "$1" in
    softpipe | agx16) runs=("$1") ;;
    both) runs=(agx16 softpipe) ;;
    --no-ms4) ms4=0 ;;
    --fraction | --caselist | --include | --jobs | --timeout)
        [[ $# -ge 2 ]] || { echo "$usage" >&2; exit 2; }
        case "$1" in
        --fraction) fraction=$2 ;;
        --caselist) caselist=$2 ;;
        --include) includes+=(--include-tests "$2") ;;
        --jobs) jobs=$2 ;;
        --timeout) timeout=$2 ;;
        esac
        shift
        ;;
    *)
        echo "$usage" >&2
        exit 2
        ;;
    esac
    shift
done
[[ "$fraction" =~ ^[1-9][0-9]*$ && "$jobs" =~ ^[1-9][0-9]*$ && "$timeout" =~ ^[1-9][0-9]*$ ]] ||
    { echo "$usage" >&2; exit 2; }

if [[ -z "${DEQP_GLES3:-}" || ! -x "${DEQP_GLES3:-}" ]]; then
    echo "deqp: set DEQP_GLES3 to a deqp-gles3 binary built from VK-GL-CTS outside this repository (ci/deqp/README.md)${DEQP_GLES3:+; '$DEQP_GLES3' is not an executable}" >&2
    exit 2
fi
deqp=$(realpath "$DEQP_GLES3")
if [[ -z "$caselist" ]]; then
    caselist="$AGX16_ROOT/../shared/deqp/gles3-main.txt"
fi
[[ -f "$caselist" ]] || { echo "deqp: case list '$caselist' not found (--caselist FILE or AGX16_DEQP_CASELIST)" >&2; exit 2; }
caselist=$(realpath "$caselist")

cfg="$AGX16_ROOT/ci/deqp"
tools="$AGX16_ROOT/target/tools"
out="$AGX16_ROOT/target/deqp"
# shellcheck source=ci/sweep-env.sh
source "$AGX16_ROOT/ci/sweep-env.sh"
install_runner "$tools"
sweep_stage_libs "$out/lib"

status=0
for r in "${runs[@]}"; do
    info=$(check_renderer "$r") || exit 1
    rm -rf "${out:?}/$r" && mkdir -p "$out/$r"
    echo "deqp: $r: GL_RENDERER '${info%%|*}', GL_VERSION '${info#*|}'; $(wc -l <"$caselist") cases in $(basename "$caselist"), 1 in $fraction, $jobs jobs"
    case "$r" in
    agx16) renderer_check=agx16 ;;
    softpipe) renderer_check=softpipe ;;
    esac
    # softpipe offers no 4-sample EGL config: the multisample configuration is agx16's only.
    tables=("$cfg/gles3.toml")
    [[ $r == agx16 && $ms4 == 1 ]] && tables+=("$cfg/gles3-ms4.toml")
    sed -e "s|@DEQP_GLES3@|$deqp|" -e "s|@CASELIST@|$caselist|" -e "s|@RENDERER_CHECK@|$renderer_check|" \
        -e "s|@TIMEOUT@|$timeout.0|" "${tables[@]}" >"$out/$r/suite.toml"
    runner_env_args "$r"
    lists=()
    [[ -s "$cfg/$r-fails.csv" ]] && lists+=(--baseline "$cfg/$r-fails.csv")
    [[ -s "$cfg/$r-flakes.txt" ]] && lists+=(--flakes "$cfg/$r-flakes.txt")
    [[ -s "$cfg/$r-skips.txt" ]] && lists+=(--skips "$cfg/$r-skips.txt")
    start=$(date +%s)
    rc=0
    "$tools/bin/deqp-runner" suite --suite "$out/$r/suite.toml" --output "$out/$r" --jobs "$jobs" \
        --fraction "$fraction" "${includes[@]}" "${env_args[@]}" "${lists[@]}" --summary-limit 30 || rc=$?
    wall=$(($(date +%s) - start))
    recheck_renderer "$r" "$info" deqp || exit 1
    [[ $rc -eq 0 ]] || status=1
    {
        run_env_common "$info" "$wall" "$rc"
        echo "caselist=$(basename "$caselist")"
        echo "fraction=$fraction"
        echo "includes=${includes[*]}"
        echo "jobs=$jobs"
        echo "ms4=$([[ ${#tables[@]} -gt 1 ]] && echo yes || echo no)"
        echo "timeout=$timeout"
    } >"$out/$r/run.env"
    echo "deqp: $r: $(cut -d, -f2 "$out/$r/results.csv" | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')wall ${wall}s, runner exit $rc"
done
"$cfg/summary.sh" "$out" >"$out/results.md"
echo "deqp: summary in $out/results.md; unexpected results in $out/*/failures.csv"
exit "$status"
