#!/usr/bin/env bash
# summary.sh OUT: prints a markdown summary of the dEQP runs under OUT (target/deqp/{agx16,softpipe}): per
# renderer the count of each status (deqp-runner's ExpectedFail resolved to the status the baseline names,
# so a crash stays a crash), the pass rate (Pass + Warn over the cases run), wall time and run facts; then,
# when both ran on the same cases, the groups with most cases that pass on softpipe and not on agx16.
set -euo pipefail
out=$1
cfg=$(cd "$(dirname "$0")" && pwd)
field() { sed -n "s/^$1=//p" "$2"; }
statuses=(Pass Warn Fail Crash Timeout Skip Flake)

resolved() { # renderer -> "name,status" lines, ExpectedFail resolved through the baseline
    awk -F, -v base="$cfg/$1-fails.csv" '
        BEGIN { while ((getline line < base) > 0) if (line !~ /^#/ && line != "") { split(line, f, ","); b[f[1]] = f[2] } }
        { s = $2; if (s == "ExpectedFail") s = ($1 in b) ? b[$1] : "ExpectedFail"; if (s == "KnownFlake") s = "Flake"; print $1 "," s }
    ' "$out/$1/results.csv"
}

echo "| renderer | GL_VERSION | cases | $(printf '%s | ' "${statuses[@]}")other | pass rate | wall | date (UTC) |"
echo "|---|---|---|$(printf -- '---|%.0s' "${statuses[@]}")---|---|---|---|"
for r in agx16 softpipe; do
    [[ -f "$out/$r/results.csv" && -f "$out/$r/run.env" ]] || continue
    declare -A n=()
    total=0
    while read -r c s; do
        n[$s]=$c
        total=$((total + c))
    done < <(resolved "$r" | cut -d, -f2 | sort | uniq -c)
    pass=$(((${n[Pass]:-0} + ${n[Warn]:-0})))
    row="| $(field renderer "$out/$r/run.env") | $(field gl_version "$out/$r/run.env") | $total |"
    for s in "${statuses[@]}"; do
        row+=" ${n[$s]:-0} |"
        unset "n[$s]"
    done
    other=""
    for s in "${!n[@]}"; do other+="${other:+, }$s ${n[$s]}"; done
    rate=$(awk -v p="$pass" -v t="$total" 'BEGIN { printf "%.1f%%", t ? 100 * p / t : 0 }')
    row+=" ${other:-0} | $rate | $(field wall_seconds "$out/$r/run.env") s | $(field date "$out/$r/run.env") |"
    echo "$row"
    unset n
done
for r in agx16 softpipe; do
    [[ -f "$out/$r/run.env" ]] || continue
    echo
    echo "$r: Mesa built $(field built "$out/$r/run.env") from tree $(field tree "$out/$r/run.env"), \
deqp-runner $(field deqp_runner "$out/$r/run.env"), $(field caselist "$out/$r/run.env") 1 in \
$(field fraction "$out/$r/run.env")$(inc=$(field includes "$out/$r/run.env"); [[ -n "$inc" ]] && echo " ($inc)"), \
--jobs $(field jobs "$out/$r/run.env"), --timeout $(field timeout "$out/$r/run.env") s, \
runner exit $(field runner_exit "$out/$r/run.env") (0: every result matches ci/deqp/$r-fails.csv)."
done
if [[ -f "$out/agx16/results.csv" && -f "$out/softpipe/results.csv" ]]; then
    echo
    echo "Groups with most cases passing on softpipe and not on agx16 (cases / of the group run on both):"
    echo
    join -t, <(resolved agx16 | sort) <(resolved softpipe | sort) | awk -F, '
        { g = $1; sub(/\.[^.]*$/, "", g); n[g]++; if (($3 == "Pass" || $3 == "Warn") && !($2 == "Pass" || $2 == "Warn")) bad[g]++ }
        END { for (g in bad) printf "%d %d %s\n", bad[g], n[g], g }' |
        sort -k1,1nr -k3 | head -n 25 | awk '{ printf "- %s: %d / %d\n", $3, $1, $2 }'
fi
