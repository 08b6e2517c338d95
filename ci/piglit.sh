#!/usr/bin/env bash
# ./x piglit: runs the GLES 3 slice of Debian's piglit through deqp-runner's piglit-runner twice, on agx16
# (shim preloaded, renderer must be "agx16") and on softpipe (same Mesa build), and compares agx16 with
# ci/piglit/agx16-fails.txt. Results land in target/piglit/{agx16,softpipe}. Not part of ./x test.
set -euo pipefail
: "${AGX16_ROOT:?run this through ./x}" "${AGX16_MESA_BUILD:?}" "${AGX16_SHIM:?}"
cfg="$AGX16_ROOT/ci/piglit"
tools="$AGX16_ROOT/target/tools"
if ! dpkg -s piglit >/dev/null 2>&1; then
    sudo apt-get install -y --no-install-recommends piglit
fi
if [[ ! -x "$tools/bin/piglit-runner" ]]; then
    cargo install --locked --root "$tools" deqp-runner
fi
arch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)"
pigdir="/usr/lib/$arch/piglit"
libs="$AGX16_MESA_BUILD/src/egl:$AGX16_MESA_BUILD/src/mapi/es2api:$AGX16_MESA_BUILD/src/gallium/targets/dri"
libs="$libs:$pigdir/lib:/usr/lib/$arch"
includes=()
while read -r re; do
    [[ -z "$re" || "$re" == \#* ]] || includes+=(--include-tests "$re")
done <"$cfg/include.txt"
common=(run --piglit-folder "$pigdir" --profile quick --process-isolation --jobs 2 --timeout 30
    --skips "$cfg/skips.txt" "${includes[@]}")
export PIGLIT_PLATFORM=surfaceless_egl EGL_PLATFORM=surfaceless PIGLIT_NO_FAST_SKIP=1
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out="$AGX16_ROOT/target/piglit"
rm -rf "$out" && mkdir -p "$out"
status=0
echo "piglit: softpipe"
LIBGL_ALWAYS_SOFTWARE=1 "$tools/bin/piglit-runner" "${common[@]}" --output "$out/softpipe" \
    --renderer-check softpipe || true
echo "piglit: agx16"
LD_PRELOAD="$AGX16_SHIM" "$tools/bin/piglit-runner" "${common[@]}" --output "$out/agx16" \
    --renderer-check agx16 --baseline "$cfg/agx16-fails.txt" || status=$?
for r in softpipe agx16; do
    [[ -f "$out/$r/results.csv" ]] && echo "$r: $(cut -d, -f2 "$out/$r/results.csv" | sort | uniq -c | tr '\n' ' ')"
done
exit "$status"
