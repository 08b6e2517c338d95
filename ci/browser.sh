#!/usr/bin/env bash
# Runs a web browser headless on agx16 (the Mesa build under target/mesa, the DRM shim preloaded, EGL on
# the surfaceless platform, as ci/run.sh does for any GL program) and writes what the page shows.
# Called by `./x browser [chromium|firefox] [--softpipe] [--out FILE] URL|FILE`.
#   chromium (default): Debian's chromium-headless-shell; prints the page's DOM after load
#                       (--dump-dom), or writes a PNG screenshot with --out FILE.
#   firefox:            Debian's firefox-esr; writes a PNG screenshot (--out, default ./firefox.png)
#                       and prints the page's console messages. WebGL runs on agx16 through Mesa's
#                       surfaceless EGL platform, chosen by Firefox itself after its start-up GPU
#                       probe ran on a private Xvfb (docs/browsers.md).
#   --softpipe:         the same Mesa build's softpipe instead of agx16 (no shim), for comparison.
# The browser package is installed with apt-get if its command is missing.
# AGX16_GALLIUM_DIR (ci/dev-gallium.sh) puts a worktree's relinked libgallium first, as in the tests.
set -euo pipefail
: "${AGX16_MESA_BUILD:?run this through ./x}" "${AGX16_SHIM:?run this through ./x}"

usage() {
    echo "usage: ./x browser [chromium|firefox] [--softpipe] [--out FILE] URL|FILE" >&2
    exit 2
}

browser=chromium
softpipe=0
out=""
url=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    chromium | firefox) browser=$1 ;;
    --softpipe) softpipe=1 ;;
    --out)
        [[ $# -ge 2 ]] || usage
        out=$2
        shift
        ;;
    -h | --help) usage ;;
    -*) usage ;;
    *)
        [[ -z "$url" ]] || usage
        url=$1
        ;;
    esac
    shift
done
[[ -n "$url" ]] || usage
# A local file becomes an absolute file:// URL.
if [[ "$url" != *://* ]]; then
    [[ -e "$url" ]] || {
        echo "browser: $url is neither a URL nor a file" >&2
        exit 2
    }
    url="file://$(cd "$(dirname "$url")" && pwd -P)/$(basename "$url")"
fi

# The browser from the distribution, installed on first use (as ci/setup.sh installs packages);
# Firefox's start-up GPU probe also needs an X server, Xvfb.
case "$browser" in
chromium)
    packages=(chromium-headless-shell)
    commands=(chromium-headless-shell)
    ;;
firefox)
    packages=(firefox-esr xvfb)
    commands=(firefox-esr Xvfb)
    ;;
esac
command=${commands[0]}
missing=()
for i in "${!commands[@]}"; do
    command -v "${commands[$i]}" >/dev/null 2>&1 || missing+=("${packages[$i]}")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
    echo "browser: installing ${missing[*]}" >&2
    "${sudo[@]}" apt-get update >&2
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi

if [[ $softpipe -eq 0 && ! -f "$AGX16_SHIM" ]]; then
    echo "browser: the DRM shim $AGX16_SHIM is missing; build it with ./x build" >&2
    exit 1
fi

# The environment of ci/run.sh; softpipe runs without the shim, so Mesa finds no GPU.
libs="$AGX16_MESA_BUILD/src/egl:$AGX16_MESA_BUILD/src/mapi/es2api:$AGX16_MESA_BUILD/src/gallium/targets/dri"
if [[ -n "${AGX16_GALLIUM_DIR:-}" ]]; then
    libs="$AGX16_GALLIUM_DIR:$libs"
fi
export EGL_PLATFORM=surfaceless
if [[ $softpipe -eq 1 ]]; then
    export LIBGL_ALWAYS_SOFTWARE=1
else
    export LD_PRELOAD="$AGX16_SHIM${LD_PRELOAD:+:$LD_PRELOAD}"
fi

# A profile of this run only, removed afterwards.
profile=$(mktemp -d "${TMPDIR:-/tmp}/agx16-browser.XXXXXX")
xvfb=""
trap '[[ -z "$xvfb" ]] || kill "$xvfb" 2>/dev/null; rm -rf "$profile"' EXIT

case "$browser" in
chromium)
    export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # --no-sandbox: the GPU process must load the shim and the Mesa build named by LD_PRELOAD and
    #   LD_LIBRARY_PATH (the sandbox's zygote and file broker do not let it), and Chromium refuses to
    #   sandbox as root, which containers usually are.
    # --use-gl=angle --use-angle=gl-egl: ANGLE's OpenGL ES back end on the system EGL (ours);
    #   Chromium's default headless GL is ANGLE on SwiftShader.
    # --disable-software-rasterizer: no fallback to SwiftShader; without agx16 WebGL is unavailable,
    #   never silently software. (On softpipe ANGLE cannot make an ES 3.0 context, the required
    #   formats not being 4x multisampled, and Chromium has no WebGL there.)
    # --disable-gpu-watchdog: agx16 executes on the M4 model, where one frame of a heavy page takes
    #   seconds; the watchdog would end the GPU process as hung.
    flags=(
        --no-sandbox
        --use-gl=angle --use-angle=gl-egl
        --disable-software-rasterizer
        --user-data-dir="$profile"
        --window-size=800,600
        --hide-scrollbars
        --disable-gpu-watchdog
    )
    if [[ -n "$out" ]]; then
        exec_out=("--screenshot=$(realpath -m "$out")")
    else
        exec_out=(--dump-dom)
    fi
    "$command" "${flags[@]}" "${exec_out[@]}" "$url"
    ;;
firefox)
    # Firefox decides at start-up, from a GPU probe (glxtest, a child process) on an X display,
    # whether WebGL may use EGL, WebGL 2 and the hardware device; without a display the probe fails
    # and its blocklist allows none of them. The probe gets an X server of its own, a private Xvfb;
    # the page still renders headless. Xvfb has no DRI3, so the probe's EGL test runs on Mesa's X11
    # platform in software (softpipe); that is enough for Firefox to choose EGL and the hardware
    # device, and headless it then asks Mesa's surfaceless platform for its display, which is agx16
    # under the shim (softpipe with --softpipe). Firefox takes GL entry points from libGL.so first;
    # the Mesa build's own libGL (its GLX library) shares the EGL contexts' dispatch.
    if [[ ! -e "$AGX16_MESA_BUILD/src/glx/libGL.so.1" ]]; then
        echo "browser: $AGX16_MESA_BUILD has no X11 platform and libGL (an older configuration);" \
            "./x build reconfigures it" >&2
        exit 1
    fi
    export LD_LIBRARY_PATH="$AGX16_MESA_BUILD/src/glx:$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # The probe opens the X display's EGL platform (Mesa's default); Firefox's WebGL names the
    # surfaceless platform itself.
    unset EGL_PLATFORM
    # The X server itself runs without the shim and the Mesa build.
    env -u LD_PRELOAD -u LD_LIBRARY_PATH Xvfb -displayfd 3 -screen 0 800x600x24 -nolisten tcp \
        3>"$profile/display" 2>"$profile/xvfb.log" &
    xvfb=$!
    for _ in $(seq 100); do
        [[ -s "$profile/display" ]] && break
        kill -0 "$xvfb" 2>/dev/null || break
        sleep 0.1
    done
    if [[ ! -s "$profile/display" ]]; then
        echo "browser: Xvfb did not start:" >&2
        tail -n 5 "$profile/xvfb.log" >&2
        exit 1
    fi
    export DISPLAY=":$(head -n 1 "$profile/display")"
    # Console messages go to stdout; the unmasked renderer is shown as is.
    cat >"$profile/user.js" <<'EOF'
user_pref("webgl.sanitize-unmasked-renderer", false);
user_pref("devtools.console.stdout.content", true);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
EOF
    "$command" --headless --no-remote --profile "$profile" --window-size=800,600 \
        --screenshot "$(realpath -m "${out:-firefox.png}")" "$url"
    ;;
esac
