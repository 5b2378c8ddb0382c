#!/usr/bin/env bash
# build-image.sh: builds packer's Debian appliance for real hosts, from
# Debian's packages only (mmdebstrap), into OUTDIR:
#   debian-hadoop.qcow2  an ext4 root filesystem (no partition table, no boot
#                        loader): boot it directly with the two files below
#                        and the kernel command line "root=/dev/vda console=ttyS0"
#   vmlinuz, initrd.img  the image's own kernel and initramfs (virtio_blk and
#                        ext4 checked to be in it or built in)
# The image has systemd, cloud-init (NoCloud data source only, so packer's
# cidata seed configures hostname, /etc/hosts, the network and the job),
# ifupdown, net-tools and resolvconf (which cloud-init's network-config
# drives on Debian), OpenJDK 17,
# openssh-server, netcat-openbsd, and the user's Hadoop with --hadoop.
#
# Usage: build-image.sh [options] [OUTDIR]      (OUTDIR default ./debian-hadoop)
#   --suite S        Debian suite (default bookworm)
#   --size N         root filesystem size, as for mke2fs (default 4G)
#   --hadoop FILE    an Apache Hadoop binary tarball you downloaded; unpacked
#                    into /opt/hadoop (HADOOP_HOME in /etc/profile.d/hadoop.sh)
#   --mirror URI     Debian mirror (default: this machine's from its apt
#                    sources, else http://deb.debian.org/debian)
#   --no-updates     only SUITE itself, not SUITE-updates and SUITE-security
#   --packages LIST  extra Debian packages (comma or space separated)
#   --kernel PKG     kernel package (default linux-image-cloud-amd64)
#   --java PKG       Java runtime package (default openjdk-17-jre-headless)
#   --ssh-key FILE   authorized_keys for root (without it no one can log in)
# Needs mmdebstrap, e2fsprogs (mke2fs), qemu-utils (qemu-img), tar and network
# access to the mirror. Run it as root (mmdebstrap's root mode), or as a user
# with /etc/subuid and /etc/subgid entries and the uidmap package (mmdebstrap's
# unshare mode; the root file system is then unpacked and put into ext4 inside
# a user namespace with `mmdebstrap --unshare-helper`).
set -euo pipefail

prog=${0##*/}
die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^# Needs/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

suite=bookworm size=4G hadoop="" mirror="" updates=1 packages="" kernel=linux-image-cloud-amd64 java=openjdk-17-jre-headless sshkey="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --suite|--size|--hadoop|--mirror|--packages|--kernel|--java|--ssh-key)
      [ $# -ge 2 ] || die "$1 needs a value"
      case "$1" in
        --suite) suite=$2 ;; --size) size=$2 ;; --hadoop) hadoop=$2 ;; --mirror) mirror=$2 ;;
        --packages) packages=$2 ;; --kernel) kernel=$2 ;; --java) java=$2 ;; --ssh-key) sshkey=$2 ;;
      esac
      shift 2 ;;
    --suite=*|--size=*|--hadoop=*|--mirror=*|--packages=*|--kernel=*|--java=*|--ssh-key=*)
      set -- "${1%%=*}" "${1#*=}" "${@:2}" ;;
    --no-updates) updates=0; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option $1 (try --help)" ;;
    *) [ -z "$out" ] || die "one OUTDIR only (got $out and $1)"; out=$1; shift ;;
  esac
done
out=${out:-debian-hadoop}

# ---- checks, each a one-line error --------------------------------------
for t in mmdebstrap mke2fs qemu-img tar; do
  command -v "$t" >/dev/null || PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null ||
    die "needs $t (apt-get install mmdebstrap e2fsprogs qemu-utils tar)"
done
export PATH=$PATH:/usr/sbin:/sbin
[[ $suite =~ ^[a-z][a-z0-9.-]*$ ]] || die "--suite $suite: not a Debian suite name"
[[ $size =~ ^[0-9]+[KMGT]?$ ]] || die "--size $size: want a number with an optional K, M, G or T"
[[ $kernel =~ ^[a-z0-9][a-z0-9.+-]*$ ]] || die "--kernel $kernel: not a package name"
[[ $java =~ ^[a-z0-9][a-z0-9.+-]*$ ]] || die "--java $java: not a package name"
if [ -n "$hadoop" ]; then
  [ -f "$hadoop" ] && [ -r "$hadoop" ] || die "--hadoop $hadoop: no such readable file"
  listing=$(tar -tf "$hadoop" 2>/dev/null) || die "--hadoop $hadoop: not a tarball tar can read"
  tops=$(sed 's|^\./||; s|/.*||' <<<"$listing" | sort -u)
  [ "$(printf '%s\n' "$tops" | grep -c .)" = 1 ] || die "--hadoop $hadoop: want one top directory (hadoop-X.Y.Z/), found: $(echo $tops | head -c 200)"
  grep -q '^\(\./\)\{0,1\}[^/]*/bin/hadoop$' <<<"$listing" || die "--hadoop $hadoop: no bin/hadoop under $tops/: not a Hadoop binary tarball"
  hadoop=$(realpath "$hadoop")
  [[ $hadoop != *[[:space:]]* ]] || die "--hadoop $hadoop: a path without spaces, please (mmdebstrap's upload hook splits on them)"
fi
if [ -n "$sshkey" ]; then
  [ -f "$sshkey" ] && grep -q '^\(ssh-\|ecdsa-\|sk-\)' "$sshkey" || die "--ssh-key $sshkey: not a public key file"
  sshkey=$(realpath "$sshkey")
  [[ $sshkey != *[[:space:]]* ]] || die "--ssh-key $sshkey: a path without spaces, please (mmdebstrap's upload hook splits on them)"
fi
packages=$(echo "$packages" | tr ', ' '\n\n' | grep . | tr '\n' ',' | sed 's/,$//') || true

if [ "$(id -u)" = 0 ]; then
  mode=root
  asroot() { "$@"; }
else
  mode=unshare
  command -v newuidmap >/dev/null || die "not root: unshare mode needs newuidmap (apt-get install uidmap), or run as root"
  grep -q "^$(id -un):" /etc/subuid 2>/dev/null || die "not root: unshare mode needs an /etc/subuid entry for $(id -un), or run as root"
  asroot() { mmdebstrap --unshare-helper "$@"; }
fi

# ---- mirror ----------------------------------------------------------------
# The first URI of this machine's apt sources that carries the given suite
# (one-line .list and deb822 .sources formats).
apt_uri() {
  local s=$1 f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    awk -v s="$s" '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
      if ($(i+1) == s) { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk -v s="$s" 'BEGIN { RS = ""; FS = "\n" } {
      t = ""; u = ""; su = ""; en = "yes"
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^Types:/) t = $i; else if ($i ~ /^URIs:/) u = $i
        else if ($i ~ /^Suites:/) su = $i; else if ($i ~ /^Enabled:/) en = $i }
      if (t !~ /[ \t]deb([ \t]|$)/ || en ~ /no/) next
      n = split(su, a, /[ \t]+/); split(u, b, /[ \t]+/)
      for (j = 2; j <= n; j++) if (a[j] == s) { print b[2]; exit } }' "$f"
  done
}
if [ -z "$mirror" ]; then
  mirror=$(apt_uri "$suite" | sed -n 1p)
  [ -n "$mirror" ] || mirror=$(apt_uri bookworm | sed -n 1p)  # a Debian mirror carries other suites too
  mirror=${mirror:-http://deb.debian.org/debian}
fi
mirror=${mirror%/}
sources=("deb $mirror $suite main")
case "$suite" in sid|unstable|experimental|rc-buggy|testing) updates=0 ;; esac
if [ "$updates" = 1 ]; then
  security=$(apt_uri "$suite-security" | sed -n 1p)
  if [ -z "$security" ]; then
    case "$mirror" in */debian) security=$mirror-security ;; *) security=http://deb.debian.org/debian-security ;; esac
  fi
  sources+=("deb $mirror $suite-updates main" "deb ${security%/} $suite-security main")
fi

# ---- work directory, removed on exit ---------------------------------------
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/build-image.XXXXXX") || die "cannot make a temporary directory"
# In unshare mode the namespace's root is another uid: let it write here
# (sticky: nobody else can replace the hook script).
if [ "$mode" = unshare ]; then chmod 1777 "$tmp"; fi
cleanup() {
  if [ -d "$tmp/root" ]; then asroot rm -rf "$tmp/root" || true; fi
  rm -rf "$tmp" 2>/dev/null || asroot rm -rf "$tmp" || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The customize hook: runs with the chroot as $1 after all packages are in.
cat > "$tmp/customize.sh" <<'HOOK'
#!/bin/sh
set -eu
r=$1
fail() { echo "build-image: $*" >&2; exit 1; }

echo "LABEL=hadoop-root / ext4 defaults,errors=remount-ro 0 1" > "$r/etc/fstab"
echo debian-hadoop > "$r/etc/hostname"
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' > "$r/etc/hosts"

# cloud-init: packer's seed is a NoCloud volume (label cidata); looking for
# nothing else keeps boot from waiting on network metadata services.
# ed25519 and ecdsa host keys only: an RSA key takes seconds under TCG.
cat > "$r/etc/cloud/cloud.cfg.d/90-packer.cfg" <<'EOF'
# packer's appliance: the seed is packer's NoCloud volume, nothing else.
datasource_list: [ NoCloud, None ]
ssh_genkeytypes: [ ed25519, ecdsa ]
locale: C.UTF-8
EOF
# C.UTF-8 needs no locale-gen (which fails without the locales package).
echo LANG=C.UTF-8 > "$r/etc/default/locale"
# Every VM gets its own host keys (cloud-init makes them on first boot) and
# machine-id (systemd makes it; mmdebstrap leaves it empty).
rm -f "$r"/etc/ssh/ssh_host_*
# cloud-init's network-config is rendered to /etc/network/interfaces.d by
# its ENI renderer; ifupdown must source that directory.
grep -q '^source /etc/network/interfaces.d/\*' "$r/etc/network/interfaces" 2>/dev/null ||
  printf 'source /etc/network/interfaces.d/*\n\nauto lo\niface lo inet loopback\n' > "$r/etc/network/interfaces"
# That renderer (cloud-init 22.4, bookworm) writes a route other than the
# gateway4 one as "post-up route add ...": net-tools is in the image for it.
# Its nameservers become dns-nameservers lines, which resolvconf turns into
# /etc/resolv.conf; the build host's copy, which mmdebstrap left, goes.
ln -sfn ../run/resolvconf/resolv.conf "$r/etc/resolv.conf"
rm -f "$r/etc/resolvconf/resolv.conf.d/original"

# Java and Hadoop for login shells (a job's command can source the file).
java=$(chroot "$r" readlink -f /usr/bin/java) || fail "no java in the image"
{
  echo "export JAVA_HOME=${java%/bin/java}"
  if [ -n "${BUILD_HADOOP:-}" ]; then
    echo 'export HADOOP_HOME=/opt/hadoop HADOOP_CONF_DIR=/opt/hadoop/etc/hadoop'
    echo 'export PATH=$PATH:/opt/hadoop/bin:/opt/hadoop/sbin'
  fi
} > "$r/etc/profile.d/hadoop.sh"
if [ -n "${BUILD_HADOOP:-}" ]; then
  mkdir -p "$r/opt"
  tar -xf "$r/tmp/hadoop.tar" -C "$r/opt" --no-same-owner --no-same-permissions
  rm -f "$r/tmp/hadoop.tar"
  top=$(cd "$r/opt" && ls -d hadoop-* 2>/dev/null | head -1)
  [ -n "$top" ] && [ "$top" != hadoop ] && mv "$r/opt/$top" "$r/opt/hadoop"
  [ -x "$r/opt/hadoop/bin/hadoop" ] || fail "the Hadoop tarball gave no /opt/hadoop/bin/hadoop"
  chown -R 0:0 "$r/opt/hadoop"
fi
if [ -n "${BUILD_SSHKEY:-}" ]; then
  mkdir -p -m 0700 "$r/root/.ssh"
  mv "$r/tmp/authorized_keys" "$r/root/.ssh/authorized_keys"
  chown 0:0 "$r/root/.ssh/authorized_keys"; chmod 0600 "$r/root/.ssh/authorized_keys"
fi

# initramfs: only the virtio and Xen disk drivers and ext4 (where the kernel
# builds them as modules), so that it mounts root=/dev/vda (or xvda). The
# default, MODULES=most, makes a 52 MB initramfs that a 128 MiB guest
# (packer's canary) cannot unpack.
echo MODULES=list > "$r/etc/initramfs-tools/conf.d/packer-modules"
cat >> "$r/etc/initramfs-tools/modules" <<'EOF'
virtio_pci
virtio_blk
virtio_scsi
sd_mod
virtio_net
xen_blkfront
ext4
crc32c_generic
EOF
# packer hosts check --canary boots this kernel and initrd with no disk, no
# root= and packer.run=true: power off at once instead of waiting for a root
# file system that will never come (the appliance contract).
mkdir -p "$r/etc/initramfs-tools/scripts/init-top"
cat > "$r/etc/initramfs-tools/scripts/init-top/packer-canary" <<'EOF'
#!/bin/sh
case "$1" in prereqs) exit 0 ;; esac
run=""
for a in $(cat /proc/cmdline); do
  case "$a" in root=*) exit 0 ;; packer.run=*) run=1 ;; esac
done
[ -n "$run" ] || exit 0
echo "packer-appliance: canary (packer.run, no root=): powering off"
poweroff -f 2>/dev/null || echo o > /proc/sysrq-trigger
sleep 30
EOF
chmod 0755 "$r/etc/initramfs-tools/scripts/init-top/packer-canary"
chroot "$r" update-initramfs -u -k all

# Check: the initramfs can mount root.
ver=$(cd "$r/boot" && ls vmlinuz-* | sed 's/^vmlinuz-//')
[ "$(echo "$ver" | wc -l)" = 1 ] || fail "want one kernel in /boot, found: $ver"
list=$(chroot "$r" lsinitramfs "/boot/initrd.img-$ver")
for m in virtio_blk virtio_pci ext4; do
  grep -q "/$m\.ko\$" "$r/lib/modules/$ver/modules.builtin" && continue
  echo "$list" | grep -q "/$m\.ko" || fail "initrd.img-$ver lacks $m (neither built in nor in the initrd)"
done
echo "$list" | grep -q 'scripts/init-top/packer-canary' || fail "initrd.img-$ver lacks the canary script"
HOOK
chmod 0755 "$tmp/customize.sh"

include="systemd-sysv,udev,$kernel,initramfs-tools,cloud-init,ifupdown,isc-dhcp-client,iproute2,openssh-server,$java,netcat-openbsd,procps,less,sudo,ca-certificates,zstd,dbus,libpam-systemd,net-tools,resolvconf"
[ -z "$packages" ] || include="$include,$packages"
hooks=()
if [ -n "$hadoop" ]; then
  hooks+=(--customize-hook="upload $hadoop /tmp/hadoop.tar")
  export BUILD_HADOOP=1
fi
if [ -n "$sshkey" ]; then
  hooks+=(--customize-hook="upload $sshkey /tmp/authorized_keys")
  export BUILD_SSHKEY=1
fi
hooks+=(--customize-hook="$tmp/customize.sh")

echo "$prog: $suite from $mirror$([ "$updates" = 1 ] && echo " (+ $suite-updates, $suite-security)"), $mode mode, into $out" >&2
mmdebstrap --mode="$mode" --variant=important --format=tar --include="$include" \
  "${hooks[@]}" "$suite" "$tmp/rootfs.tar" "${sources[@]}" ||
  die "mmdebstrap failed (see above)"

# vmlinuz and initrd.img straight from the tarball (no privileges needed).
mkdir "$tmp/boot"
tar -xf "$tmp/rootfs.tar" -C "$tmp/boot" --strip-components=2 --wildcards './boot/vmlinuz-*' './boot/initrd.img-*' ||
  die "the root file system has no /boot/vmlinuz-* or /boot/initrd.img-*"

# The root file system: unpacked as (namespace) root so that owners survive,
# then copied into a fresh ext4 by mke2fs -d. /dev stays empty (devtmpfs).
echo "$prog: making the $size ext4 file system" >&2
asroot sh -c '
  set -ef
  mkdir "$1/root"
  tar -xpf "$1/rootfs.tar" -C "$1/root" --numeric-owner --exclude="./dev/*" $2
  mke2fs -q -F -t ext4 -L hadoop-root -d "$1/root" "$1/root.raw" "$3"
  chmod 0644 "$1/root.raw"
' sh "$tmp" "$([ "$mode" = root ] && echo "--xattrs --xattrs-include=*")" "$size" ||
  die "making the ext4 file system failed (too small? the tree needs $(du -sh "$tmp/rootfs.tar" | cut -f1), --size is $size)"
asroot rm -rf "$tmp/root"
rm -f "$tmp/rootfs.tar"
qemu-img convert -f raw -O qcow2 "$tmp/root.raw" "$tmp/debian-hadoop.qcow2" || die "qemu-img convert failed"

mv -f "$tmp/debian-hadoop.qcow2" "$out/debian-hadoop.qcow2"
install -m 0644 "$tmp"/boot/vmlinuz-* "$out/vmlinuz"
install -m 0644 "$tmp"/boot/initrd.img-* "$out/initrd.img"
ls -l "$out/debian-hadoop.qcow2" "$out/vmlinuz" "$out/initrd.img"
echo "$prog: done; boot with kernel $out/vmlinuz, initrd $out/initrd.img, cmdline \"root=/dev/vda console=ttyS0\"" >&2
