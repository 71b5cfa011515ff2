#!/usr/bin/env bash
# Install the real Nsight Compute command lines ncu 2022.3 and 2024.2 into PREFIX, without touching the system.
#
#     tools/install_ncu.sh [PREFIX] [VERSION...]      # default PREFIX: ~/.cache/ncu-roofline/ncu; VERSION: 2022.3 2024.2
#
# Both run without a GPU for what the tests need: `--version`, `--list-sections --section-folder DIR`,
# `--query-metrics --chip CHIP`, and `-i REPORT.ncu-rep --csv ...` exports.
#
#   2022.3  Debian bookworm, component non-free:       nsight-compute + nsight-compute-target 2022.3.0.22
#   2024.2  Debian experimental, component non-free:   nsight-compute + nsight-compute-target 2024.2.0.16
#
# The packages are fetched with `apt-get download` from a private apt configuration (its own sources list, package
# lists and cache under PREFIX/apt, so the system's sources and state stay as they are) and unpacked with `dpkg -x`
# (no maintainer scripts, no dependencies installed, nothing registered with dpkg). Needs apt-get, dpkg and the
# Debian archive keyring (/usr/share/keyrings/debian-archive-keyring.gpg); network access to deb.debian.org only.
# Works as root or as any user.
#
# Result, per version V:  PREFIX/V/usr/...   the unpacked packages
#                         PREFIX/bin/ncu-V   the ncu command line (a link to NVIDIA's own launcher script)
# Already installed versions (PREFIX/bin/ncu-V reports V) are kept. Prints the time each step took.
# Measured on a 2-core CI machine: about 35 s for both versions (11 s download, 24 s unpacking), 1.3 GB on disk.
set -euo pipefail

PREFIX="${1:-${HOME}/.cache/ncu-roofline/ncu}"
shift || true
VERSIONS=("$@")
[ "${#VERSIONS[@]}" -gt 0 ] || VERSIONS=(2022.3 2024.2)
MIRROR="${NCU_ROOFLINE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# version -> "suite package-version-prefix"
declare -A SOURCE=(
    [2022.3]="bookworm 2022.3.0.22~"
    [2024.2]="experimental 2024.2.0.16~"
)

die() { echo "install_ncu.sh: $*" >&2; exit 1; }
now() { date +%s; }
for v in "${VERSIONS[@]}"; do
    [ -n "${SOURCE[$v]:-}" ] || die "unknown version '$v' (known: ${!SOURCE[*]})"
done
command -v apt-get >/dev/null || die "apt-get is needed (a Debian or Ubuntu machine)"
command -v dpkg >/dev/null || die "dpkg is needed"
[ -r "$KEYRING" ] || die "$KEYRING is missing: apt-get install debian-archive-keyring"

mkdir -p "$PREFIX/bin"
PREFIX="$(cd "$PREFIX" && pwd)"
START=$(now)

installed() {  # installed VERSION -> true when PREFIX/bin/ncu-VERSION runs and reports that version
    local bin="$PREFIX/bin/ncu-$1"
    [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "Version $1\."
}

TODO=()
for v in "${VERSIONS[@]}"; do
    if installed "$v"; then
        echo "ncu $v: already in $PREFIX/$v"
    else
        TODO+=("$v")
    fi
done
[ "${#TODO[@]}" -gt 0 ] || exit 0

# A private apt: its own sources list (non-free of bookworm and experimental), lists, cache and no system parts.
APTDIR="$PREFIX/apt"
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$APTDIR/debs"
cat > "$APTDIR/sources.list" <<EOF
deb [signed-by=$KEYRING] $MIRROR bookworm non-free
deb [signed-by=$KEYRING] $MIRROR experimental non-free
EOF
APT_OPTS=(
    -o "Dir::Etc::SourceList=$APTDIR/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::Etc::Preferences=/dev/null"
    -o "Dir::Etc::PreferencesParts=/dev/null"
    -o "Dir::State::Lists=$APTDIR/lists"
    -o "Dir::Cache=$APTDIR/cache"
    -o "APT::Sandbox::User=$(id -un)"
    -o "Debug::NoLocking=1"
    -o "Acquire::Retries=3"
)
apt-get -qq "${APT_OPTS[@]}" update
echo "apt lists: $(( $(now) - START )) s"

for v in "${TODO[@]}"; do
    step=$(now)
    read -r suite want <<< "${SOURCE[$v]}"
    pkgs=()
    for pkg in nsight-compute nsight-compute-target; do
        # The exact version string (with its Debian revision) of the wanted upstream version in that suite.
        full=$(apt-cache "${APT_OPTS[@]}" madison "$pkg" | awk -F'|' -v want="$want" -v suite="$suite" '
            { gsub(/ /, "", $2); if (index($2, want) == 1 && $3 ~ suite) { print $2; exit } }')
        [ -n "$full" ] || die "$pkg $want* is not in Debian $suite non-free any more (see $MIRROR)"
        pkgs+=("$pkg=$full")
    done
    (cd "$APTDIR/debs" && apt-get -qq "${APT_OPTS[@]}" download "${pkgs[@]}")
    fetched=$(now)
    rm -rf "${PREFIX:?}/$v"
    mkdir -p "$PREFIX/$v"
    for p in "${pkgs[@]}"; do
        name="${p%%=*}"
        version="${p#*=}"
        deb=$(ls "$APTDIR/debs/${name}_${version//:/%3a}_"*.deb)
        dpkg -x "$deb" "$PREFIX/$v"
        rm -f "$deb"
    done
    ln -sfn "../$v/usr/bin/ncu" "$PREFIX/bin/ncu-$v"
    installed "$v" || die "ncu $v was unpacked into $PREFIX/$v but $PREFIX/bin/ncu-$v does not run"
    echo "ncu $v: ${pkgs[*]}: download $(( fetched - step )) s, unpack $(( $(now) - fetched )) s -> $PREFIX/bin/ncu-$v"
done
echo "install_ncu.sh: done in $(( $(now) - START )) s"
