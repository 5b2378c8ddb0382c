#!/usr/bin/env bash
# Builds packer's integration-test appliance into DIR (default ./appliance):
#   vmlinuz     Debian's stock kernel (extracted from its .deb, nothing installed)
#   initrd.img  a busybox initramfs whose /init loads the kernel's virtio
#               disk driver (Debian builds it as a module, so without it the
#               guest has no /dev/vda), runs the command given on the kernel
#               command line as packer.run=... (words joined by commas),
#               prints the identity packer handed to the guest, and powers off
#   appliance.qcow2  the "Hadoop image": an empty 64 MiB qcow2 that each VM's
#               copy-on-write overlay sits on
# Needs: busybox-static, gzip, qemu-utils, and apt access for the kernel.
set -euo pipefail
dir=${1:-appliance}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# The virtio modules the initrd loads, in dependency order, from the same
# kernel package as vmlinuz (a module loads only into its own kernel).
mods="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk"
# The guest's /init: it runs the command given as packer.run and powers off.
init=$(cat <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
for m in $(cat /lib/modules/load); do
  insmod "/lib/modules/$m.ko" || echo "packer-appliance: cannot load $m"
done
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    packer.*=*) k=${arg%%=*}; k=${k#packer.}; eval "packer_$k=\"${arg#*=}\"" ;;
  esac
done
hostname "${packer_hostname:-appliance}"
echo "packer-appliance: $(hostname) job=${packer_job} index=${packer_index} role=${packer_role} master=${packer_master} is_master=${packer_is_master:-0}"
if [ -n "${packer_run:-}" ]; then
  cmd=$(echo "$packer_run" | tr ',' ' ')
  echo "packer-appliance: running: $cmd"
  sh -c "$cmd"
  echo "packer-appliance: exit $?"
fi
# A domain's counters vanish when it powers off, and packer profile samples
# them only every 200 ms: linger so that the job's last I/O and CPU are in a
# sample (a short job's I/O all falls in its last 200 ms otherwise). Four
# seconds: a TCG guest's power-off takes about two, its counters unreadable
# meanwhile, so its last sample is read that long before it is off (1.6 to
# 2.6 s in CI runs; packer profile logs it for each run); a 2 s linger left
# no room, and one CI run without KVM counted none of one VM's 32 MiB. A
# disk job whose idle linger went unsampled is also measured over its I/O
# alone, which TCG keeps about half busy.
sync
sleep 4
echo "packer-appliance: job done, powering off"
poweroff -f
INIT
)
init_sum=$(printf '%s\n%s\n' "$mods" "$init" | sha256sum | cut -d' ' -f1)

# An initrd built before it carried the modules gave its guests no disk, and
# one built from another /init or module list runs another guest: rebuild
# it, and vmlinuz with it so that both come from one kernel package. The new
# files replace the old ones by rename, so that a run booting guests from
# them meanwhile reads one or the other whole.
rebuild=0
if [ ! -s "$dir/vmlinuz" ] || [ ! -s "$dir/initrd.img" ] ||
  ! gzip -dc "$dir/initrd.img" | /bin/busybox cpio -t 2>/dev/null | grep 'virtio_blk\.ko$' >/dev/null ||
  [ "$(cat "$dir/initrd.init.sha256" 2>/dev/null)" != "$init_sum" ]; then
  rebuild=1
fi

if [ "$rebuild" = 1 ]; then
  resolve() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}'; }
  pkg=$(resolve)
  if [ -z "$pkg" ]; then
    # A fresh machine may have no package lists yet.
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    pkg=$(resolve)
  fi
  [ -n "$pkg" ] || { echo "build-appliance: cannot resolve linux-image-amd64" >&2; exit 1; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && chmod 777 . && apt-get download -qq "$pkg" >/dev/null 2>&1 || { cd "$tmp" && apt-get download "$pkg"; })
  deb=$(ls "$tmp"/*.deb)
  want=('./boot/vmlinuz-*')
  for m in $mods; do want+=("./lib/modules/*/$m.ko"); done
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards "${want[@]}"
  cp "$tmp"/boot/vmlinuz-* "$dir/vmlinuz.new"

  root=$(mktemp -d)
  mkdir -p "$root"/{bin,proc,sys,dev,lib/modules}
  cp /bin/busybox "$root/bin/busybox"
  for m in $mods; do
    find "$tmp/lib/modules" -name "$m.ko" -exec cp {} "$root/lib/modules/" \;
    [ -s "$root/lib/modules/$m.ko" ] || { echo "build-appliance: $pkg has no $m.ko" >&2; exit 1; }
  done
  echo "$mods" > "$root/lib/modules/load"
  printf '%s\n' "$init" > "$root/init"
  chmod 755 "$root/init"
  (cd "$root" && find . | /bin/busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$dir/initrd.img.new"
  rm -rf "$root"
  mv -f "$dir/vmlinuz.new" "$dir/vmlinuz"
  mv -f "$dir/initrd.img.new" "$dir/initrd.img"
  echo "$init_sum" > "$dir/initrd.init.sha256.new"
  mv -f "$dir/initrd.init.sha256.new" "$dir/initrd.init.sha256"
fi

if [ ! -s "$dir/appliance.qcow2" ]; then
  qemu-img create -q -f qcow2 "$dir/appliance.qcow2" 64M
fi
ls -l "$dir"
