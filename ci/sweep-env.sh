# Sourced by ci/piglit.sh and ci/deqp.sh: what a conformance sweep shares.
#   sweep_stage_libs DIR   copies what the runs load (Mesa's libEGL, libGLESv2 and libgallium, the shim,
#                          agx16-glinfo) into DIR and points LD_LIBRARY_PATH there only (not glvnd, so the
#                          system Mesa cannot be picked up); sets $shim, $glinfo, $tree and $built.
#                          Other sessions rebuild target/ while a sweep runs, and a library relinked under
#                          a running sweep turns into crashes that are not the driver's.
#   run_env RENDERER       the variables that select softpipe or agx16, one KEY=VALUE per line.
#   check_renderer R       prints "GL_RENDERER|GL_VERSION" as agx16-glinfo sees them in R's environment;
#                          fails unless the renderer is R (a silent software fallback is an error).
#   install_runner TOOLS   installs deqp-runner $runner_version (piglit-runner comes with it) into TOOLS.
#   runner_env_args R      fills the array env_args with the runner's --env options for R.
#   recheck_renderer R INFO TOOL   fails unless R's renderer is still INFO after a run.
#   run_env_common INFO WALL RC    prints the run.env lines every sweep records.
# Needs AGX16_MESA_BUILD, AGX16_SHIM and CARGO_TARGET_DIR (./x sets them).

runner_version=0.24.0 # deqp-runner on crates.io; --locked uses its published Cargo.lock

install_runner() { # tools dir
    if ! "$1/bin/deqp-runner" --version 2>/dev/null | grep -qF " $runner_version"; then
        echo "sweep: installing deqp-runner $runner_version into $1"
        cargo install --locked --version "$runner_version" --root "$1" deqp-runner
    fi
}

sweep_stage_libs() { # dir
    local lib=$1 src_glinfo="$CARGO_TARGET_DIR/debug/agx16-glinfo"
    if [[ ! -x "$src_glinfo" ]]; then
        echo "sweep: $src_glinfo is missing; ./x build makes it" >&2
        return 1
    fi
    rm -rf "$lib" && mkdir -p "$lib"
    cp -L --preserve=timestamps "$AGX16_MESA_BUILD/src/egl/libEGL.so.1" \
        "$AGX16_MESA_BUILD/src/mapi/es2api/libGLESv2.so.2" \
        "${AGX16_GALLIUM_DIR:-$AGX16_MESA_BUILD/src/gallium/targets/dri}"/libgallium-*.so "$lib/"
    # Programs that dlopen the unversioned names (dEQP's EGL/GLES loaders open "libEGL.so" and
    # "libGLESv2.so") must get these copies too, not the system's glvnd libraries.
    ln -s libEGL.so.1 "$lib/libEGL.so"
    ln -s libGLESv2.so.2 "$lib/libGLESv2.so"
    cp -L --preserve=timestamps "$AGX16_SHIM" "$lib/libagx16_drm_shim.so"
    cp -L "$src_glinfo" "$lib/agx16-glinfo"
    shim="$lib/libagx16_drm_shim.so"
    glinfo="$lib/agx16-glinfo"
    # What was built from: the tree may hold uncommitted work.
    tree=$(git -C "$AGX16_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
    built=$(date -u -r "$(ls "$lib"/libgallium-*.so | head -n1)" +%Y-%m-%dT%H:%MZ)
    export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export EGL_PLATFORM=surfaceless
    # Every shader is compiled in every run (no hits from an earlier build's cache).
    export MESA_SHADER_CACHE_DISABLE=true
    unset LIBGL_ALWAYS_SOFTWARE LD_PRELOAD
}

run_env() { # renderer
    case "$1" in
    softpipe) echo LIBGL_ALWAYS_SOFTWARE=1 ;;
    agx16) echo "LD_PRELOAD=$shim" ;;
    esac
}

check_renderer() { # renderer
    local r=$1 log env_vars renderer version
    mapfile -t env_vars < <(run_env "$r")
    log=$(env "${env_vars[@]}" "$glinfo" --any-renderer 2>&1) || {
        echo "sweep: agx16-glinfo failed in the $r environment:" >&2
        echo "$log" >&2
        return 1
    }
    renderer=$(sed -n 's/^GL_RENDERER: //p' <<<"$log")
    version=$(sed -n 's/^GL_VERSION: //p' <<<"$log")
    case "$r" in
    softpipe) [[ "$renderer" == softpipe ]] ;;
    agx16) [[ "$renderer" == *agx16* ]] ;;
    esac || {
        echo "sweep: the $r environment gives GL_RENDERER '$renderer' (a fallback?), refusing its results" >&2
        return 1
    }
    echo "$renderer|$version"
}

runner_env_args() { # renderer
    local v
    env_args=()
    while read -r v; do env_args+=(--env "$v"); done < <(run_env "$1")
}

recheck_renderer() { # renderer info tool
    local after
    after=$(check_renderer "$1") || return 1
    [[ "$after" == "$2" ]] || {
        echo "$3: $1: renderer changed during the run ('$2' -> '$after')" >&2
        return 1
    }
}

run_env_common() { # info wall runner-exit
    echo "renderer=${1%%|*}"
    echo "gl_version=${1#*|}"
    echo "wall_seconds=$2"
    echo "runner_exit=$3"
    echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
    echo "deqp_runner=$runner_version"
    echo "tree=$tree"
    echo "built=$built"
}
