#!/usr/bin/env bash
# Runs PROGRAM ARGS... on agx16: the Mesa build under target/mesa, the DRM shim preloaded (it presents
# the M4 render node), EGL on the surfaceless platform. Called by `./x run -- PROGRAM ARGS...`.
set -euo pipefail
: "${AGX16_MESA_BUILD:?run this through ./x}" "${AGX16_SHIM:?run this through ./x}"
if [[ $# -eq 0 ]]; then
    echo "usage: ./x run -- PROGRAM [ARGS...]" >&2
    exit 2
fi
if [[ ! -f "$AGX16_SHIM" ]]; then
    echo "run: the DRM shim $AGX16_SHIM is missing; build it with ./x build" >&2
    exit 1
fi
libs="$AGX16_MESA_BUILD/src/egl:$AGX16_MESA_BUILD/src/mapi/es2api:$AGX16_MESA_BUILD/src/gallium/targets/dri"
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export EGL_PLATFORM=surfaceless
export LD_PRELOAD="$AGX16_SHIM${LD_PRELOAD:+:$LD_PRELOAD}"
exec "$@"
