#!/usr/bin/env bash
# Installs what building Mesa and the agx16 crates needs on Debian 12: apt packages, a deb-src entry for
# trixie (Mesa's pinned source package lives there) and a Python venv with a recent meson.
# Idempotent: a stamp under target/ records a finished run of this exact script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target="${AGX16_TARGET:-$root/target}"
stamp="$target/setup/done-$(sha256sum "$0" | cut -c1-16)"
venv="$target/venv"

if [[ -e "$stamp" && -x "$venv/bin/meson" ]]; then
    exit 0
fi
mkdir -p "$target/setup"

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi

# The deb-src entry reuses the mirror the machine already uses for Debian itself, so no registry host is
# written into the repo.
debian_mirror() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [[ -e "$f" ]] || continue
        # deb822: the first URIs line of a stanza whose Suites name the release (not its security suite).
        awk '
            /^$/ { if (uri != "" && plain) { print uri; exit } uri=""; plain=0 }
            /^URIs:/ { uri=$2 }
            /^Suites:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) plain=1 }
            END { if (uri != "" && plain) print uri }
        ' "$f" | head -n1
    done
    if [[ -e /etc/apt/sources.list ]]; then
        awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
            /etc/apt/sources.list
    fi
}

src_list=/etc/apt/sources.list.d/agx16-trixie-src.sources
if [[ ! -e "$src_list" ]]; then
    mirror=$(debian_mirror | head -n1)
    if [[ -z "$mirror" ]]; then
        echo "setup: found no Debian mirror in /etc/apt to derive a trixie deb-src entry from" >&2
        exit 1
    fi
    echo "setup: adding deb-src for trixie from the machine's mirror $mirror"
    printf 'Types: deb-src\nURIs: %s\nSuites: trixie trixie-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$mirror" | "${sudo[@]}" tee "$src_list" >/dev/null
fi

packages=(
    build-essential pkgconf ninja-build dpkg-dev xz-utils patch
    libdrm-dev libexpat1-dev zlib1g-dev libzstd-dev flex bison
    libclang-dev
    python3 python3-venv
    # Mesa's X11 EGL platform and GLX (ci/mesa.sh), for Firefox's GPU probe on Xvfb.
    libx11-dev libx11-xcb-dev libxext-dev libxfixes-dev libxrandr-dev libxxf86vm-dev libxshmfence-dev
    libxcb1-dev libxcb-dri2-0-dev libxcb-dri3-dev libxcb-glx0-dev libxcb-present-dev libxcb-randr0-dev
    libxcb-shm0-dev libxcb-sync-dev libxcb-xfixes0-dev
)
"${sudo[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${packages[@]}"

# Bookworm's meson (1.0.1) is older than Mesa 25.0 supports well; take meson from PyPI in a venv.
if [[ ! -x "$venv/bin/meson" ]]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check \
    'meson==1.7.0' 'mako>=1.1' 'pyyaml>=6' 'packaging>=23'

touch "$stamp"
echo "setup: done"
