#!/bin/sh
# vm-kernel.sh fetches a kernel to boot under `kdelta vm`: it installs
# qemu-system-x86 when qemu-system-x86_64 is missing, resolves the current
# Debian cloud kernel package (linux-image-cloud-amd64 depends on one
# versioned package), downloads it with apt-get into a cache directory,
# unpacks it with dpkg -x and prints the path of its vmlinuz.
#
# Usage: scripts/vm-kernel.sh [CACHE_DIR]
#
# CACHE_DIR defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/kdelta/kernels.
# Running it again with the package already unpacked downloads nothing.
# The kernel's config is unpacked beside it (boot/config-RELEASE), which
# kdelta vm puts into the guest so the guest's fingerprint has it.
set -eu

cache=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/kdelta/kernels}
mkdir -p "$cache"

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "vm-kernel.sh: need root to run: $*" >&2
		exit 1
	fi
}

if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	echo "vm-kernel.sh: installing qemu-system-x86" >&2
	as_root apt-get update -qq >&2 || true
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 >&2
fi

# The metapackage's one dependency is the versioned image package, e.g.
# linux-image-6.1.0-57-cloud-amd64. A signed and an unsigned variant may
# both be listed: take the first that apt-get can download.
pkgs=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
	sed -n 's/^ *Depends: *\(linux-image-[0-9][^ ]*\).*/\1/p')
if [ -z "$pkgs" ]; then
	# Without package lists apt-cache knows nothing: fetch them once.
	as_root apt-get update -qq >&2 || true
	pkgs=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		sed -n 's/^ *Depends: *\(linux-image-[0-9][^ ]*\).*/\1/p')
fi
if [ -z "$pkgs" ]; then
	echo "vm-kernel.sh: apt-cache depends linux-image-cloud-amd64 names no versioned kernel package" >&2
	exit 1
fi

for pkg in $pkgs; do
	# linux-image-6.1.0-57-cloud-amd64[-unsigned] -> 6.1.0-57-cloud-amd64
	release=${pkg#linux-image-}
	release=${release%-unsigned}
	dir=$cache/$pkg
	vmlinuz=$dir/boot/vmlinuz-$release
	if [ -s "$vmlinuz" ]; then
		echo "$vmlinuz"
		exit 0
	fi
	tmp=$(mktemp -d "$cache/.dl.XXXXXX")
	# As root, apt would download as _apt, who cannot enter a private
	# cache directory (it falls back with a warning): say so up front.
	sandbox=
	if [ "$(id -u)" -eq 0 ]; then
		sandbox="-o APT::Sandbox::User=root"
	fi
	# shellcheck disable=SC2086
	if (cd "$tmp" && apt-get download -qq $sandbox "$pkg" >&2); then
		deb=$(ls "$tmp"/*.deb)
		rm -rf "$dir.part"
		dpkg -x "$deb" "$dir.part"
		if [ ! -s "$dir.part/boot/vmlinuz-$release" ]; then
			echo "vm-kernel.sh: $deb holds no boot/vmlinuz-$release" >&2
			rm -rf "$tmp" "$dir.part"
			exit 1
		fi
		# Only the kernel, its config and System.map are needed; the
		# modules stay, for --modules.
		rm -rf "$dir"
		mv "$dir.part" "$dir"
		rm -rf "$tmp"
		echo "$vmlinuz"
		exit 0
	fi
	rm -rf "$tmp"
done
echo "vm-kernel.sh: apt-get download failed for: $pkgs" >&2
exit 1
