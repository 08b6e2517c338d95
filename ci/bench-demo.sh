#!/usr/bin/env bash
# ./x bench-demo [N]: renders the demo scene (agx16-demo, 128x128) N times (default 3) on agx16 with
# the M4 model behind the shim and N times on softpipe (a child process, same Mesa build) in one run,
# after one untimed warm-up frame each, and prints both times and their ratio. The feature set is the
# one agx16-demo chooses (checked against softpipe first), so both renderers draw the same scene.
set -euo pipefail
: "${CARGO_TARGET_DIR:?run this through ./x}"
n=${1:-3}
if ! [[ "$n" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: ./x bench-demo [N]   (N frames, default 3)" >&2
    exit 2
fi
cd "$(dirname "$0")/.."
exec ci/run.sh "$CARGO_TARGET_DIR/debug/agx16-demo" --out "$CARGO_TARGET_DIR/bench-demo.png" --bench "$n"
