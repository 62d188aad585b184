#!/usr/bin/env bash
# Runs tests/test_editors.py in the editors Debian 12 lacks: Neovim 0.10, Emacs 30 and Helix 25.01 of
# Debian 13 (trixie), and Neovim 0.12, Emacs 30.2 and Helix 25.07 of Debian unstable (sid), each in a
# Debian root of its own made by debootstrap (as root; about 850 MB each, kept for the next run).
# The tests run here; the editors run in the root (chroot), with this checkout, its Python and /tmp
# mounted at the same paths, so the server they start is this checkout's `gamedsl lsp`.
#
#     sudo editors/try-newer.sh [ROOTS]      # ROOTS: where the roots are kept (/opt/gamedsl-editors)
set -euo pipefail
cd "$(dirname "$0")/.."
roots=${1:-/opt/gamedsl-editors}
python=${PYTHON:-.venv/bin/python}
mounts=(/proc /dev /dev/pts /tmp "$PWD")
for dir in $("$python" -c 'import sys; print(sys.base_prefix, sys.prefix)'); do
    case $dir/ in "$PWD"/*) ;; *) mounts+=("$dir") ;; esac  # (a .venv of this checkout is in it)
done
status=0
for suite in trixie sid; do
    root=$roots/$suite
    if [ ! -x "$root/usr/bin/hx" ]; then
        [ -x "$root/usr/bin/apt-get" ] || debootstrap --variant=minbase "$suite" "$root" http://deb.debian.org/debian
        chroot "$root" apt-get -o Acquire::Check-Valid-Until=false update -qq  # (a frozen mirror's sid has expired)
        chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            neovim emacs-nox hx
    fi
    for dir in "${mounts[@]}"; do
        mkdir -p "$root$dir"
        mountpoint -q "$root$dir" || mount --bind "$dir" "$root$dir"
    done
    echo "== Debian $suite: $(chroot "$root" nvim --version | head -1), $(chroot "$root" emacs --version | head -1)," \
         "$(chroot "$root" hx --version)"
    GAMEDSL_EDITORS_ROOT=$root "$python" -m pytest -q -rs -p no:cacheprovider tests/test_editors.py || status=1
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        umount "$root${mounts[i]}"
    done
done
exit $status
