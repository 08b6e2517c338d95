#!/usr/bin/env bash
# summary.sh OUT [SUFFIX]: prints a markdown summary of the piglit runs under OUT (target/piglit/{softpipe,agx16}):
# per renderer the counts of each test status, with piglit-runner's ExpectedFail resolved to the status the
# baseline names (so a crash stays a crash), plus date, GL_RENDERER/GL_VERSION, versions and wall time.
set -euo pipefail
out=$1
sfx=${2:-} # baseline files are $cfg/<renderer>$sfx-fails.txt
cfg=$(cd "$(dirname "$0")" && pwd)
field() { sed -n "s/^$1=//p" "$2"; }
statuses=(Pass Fail Crash Skip Timeout)

counts() { # renderer -> "Status count" lines, raw statuses
    local r=$1
    awk -F, -v base="$cfg/$r$sfx-fails.txt" '
        BEGIN { while ((getline line < base) > 0) if (line !~ /^#/ && line != "") { split(line, f, ","); b[f[1]] = f[2] } }
        { s = $2; if (s == "ExpectedFail") s = ($1 in b) ? b[$1] : "ExpectedFail"; n[s]++ }
        END { for (s in n) print s, n[s] }
    ' "$out/$r/results.csv"
}

# piglit-runner lists a test's subtests as results of their own (name@subtest) besides the test itself.
subtests() { # renderer -> number of results whose name extends another result's name by "@..."
    awk -F, '{ name[NR] = $1; have[$1] = 1 }
        END { for (i = 1; i <= NR; i++) { p = name[i]; while (sub(/@[^@]*$/, "", p)) if (p in have) { n++; break } } print n + 0 }
    ' "$out/$1/results.csv"
}

echo "| renderer | GL_VERSION | results (subtests) | $(printf '%s | ' "${statuses[@]}")other | wall | date (UTC) |"
echo "|---|---|---|$(printf -- '---|%.0s' "${statuses[@]}")---|---|---|"
for r in softpipe agx16; do
    [[ -f "$out/$r/results.csv" && -f "$out/$r/run.env" ]] || continue
    declare -A n=()
    total=0
    while read -r s c; do
        n[$s]=$c
        total=$((total + c))
    done < <(counts "$r")
    row="| $(field renderer "$out/$r/run.env") | $(field gl_version "$out/$r/run.env") | $total ($(subtests "$r")) |"
    for s in "${statuses[@]}"; do
        row+=" ${n[$s]:-0} |"
        unset "n[$s]"
    done
    other=""
    for s in "${!n[@]}"; do other+="${other:+, }$s ${n[$s]}"; done
    row+=" ${other:-0} | $(field wall_seconds "$out/$r/run.env") s | $(field date "$out/$r/run.env") |"
    echo "$row"
    unset n
done
for r in softpipe agx16; do
    [[ -f "$out/$r/run.env" ]] || continue
    echo
    echo "$r: Mesa built $(field built "$out/$r/run.env") from tree $(field tree "$out/$r/run.env"), \
piglit $(field piglit "$out/$r/run.env"), deqp-runner $(field deqp_runner "$out/$r/run.env"), \
--jobs $(field jobs "$out/$r/run.env"), --timeout $(field timeout "$out/$r/run.env") s, \
runner exit $(field runner_exit "$out/$r/run.env") (0: every result matches ci/piglit/$r$sfx-fails.txt)."
done
