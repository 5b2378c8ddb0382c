#!/usr/bin/env bash
# Builds packer's integration-test appliance into DIR (default ./appliance):
#   vmlinuz     Debian's stock kernel (extracted from its .deb, nothing installed)
#   initrd.img  a busybox initramfs whose /init loads the kernel's virtio
#               disk and NIC drivers and ISO 9660 (Debian builds them as
#               modules, so without them the guest has no /dev/vda, no eth0
#               and cannot mount a seed), prints the identity packer handed
#               to the guest, runs its job and powers off. The job comes
#               from a cidata volume when one is attached (see /init below),
#               else from the kernel command line as packer.run=... (words
#               joined by commas)
#   appliance.qcow2  the "Hadoop image": an empty 64 MiB qcow2 that each VM's
#               copy-on-write overlay sits on
# Needs: busybox-static, gzip, qemu-utils, and apt access for the kernel.
set -euo pipefail
dir=${1:-appliance}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# The modules the initrd loads, in dependency order, from the same kernel
# package as vmlinuz (a module loads only into its own kernel): the virtio
# disk, the virtio NIC and ISO 9660. The .deb has no modules.dep (depmod
# writes it on install); the order is each .ko's own depends= field, e.g.
# virtio_net: virtio_ring,virtio,net_failover; net_failover: failover;
# isofs: cdrom. A CD-ROM (/dev/sr0) would also need scsi_common, scsi_mod,
# libata, ata_piix or ahci and sr_mod; packer attaches its seed as a virtio
# disk, so they are left out.
mods="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk failover net_failover virtio_net cdrom isofs"
# The guest's /init: it finds its seed volume or else its packer.run
# command, runs the job and powers off.
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
# A cidata volume is the guest's NoCloud seed (cloud-init's format, which
# packer attaches to each VM): an ISO 9660 volume labelled cidata (the
# label is the 32 bytes at offset 32808, in the primary volume descriptor
# of sector 16, after "CD001" at 32769). From it: the hostname from
# meta-data's local-hostname; packer-net.env (PACKER_MAC, PACKER_ADDRESS as
# CIDR, PACKER_GATEWAY optional) addresses the NIC with that MAC;
# packer-hosts ("IP hostname" lines) goes into /etc/hosts; packer-job.sh
# is the job, run with sh so that it needs no exec bit (ISO 9660 without
# Rock Ridge records none; Linux shows every file r-x).
seed=""
mkdir -p /etc /mnt/cidata
# Static busybox resolves names with glibc's built-in files backend
# (glibc 2.34 and later need no libnss_files.so), so a job reaches another
# VM by the name packer-hosts gives it; nsswitch.conf says files only, where
# glibc's default would ask DNS first and there is none.
echo "127.0.0.1 localhost" > /etc/hosts
echo "hosts: files" > /etc/nsswitch.conf
for d in /dev/vd* /dev/sr*; do
  [ -b "$d" ] || continue
  [ "$(dd if="$d" bs=1 skip=32769 count=5 2>/dev/null)" = CD001 ] || continue
  label=$(dd if="$d" bs=1 skip=32808 count=32 2>/dev/null | tr -d ' ')
  [ "$label" = cidata ] || [ "$label" = CIDATA ] || continue
  if mount -t iso9660 -o ro "$d" /mnt/cidata; then
    seed=/mnt/cidata
    echo "packer-appliance: seed $d"
    break
  fi
done
if [ -n "$seed" ]; then
  h=$(sed -n 's/^local-hostname:[[:space:]]*//p' "$seed/meta-data" 2>/dev/null | tr -d "\r\"'" | head -n 1)
  [ -z "$h" ] || hostname "$h"
  ip link set lo up
  if [ -f "$seed/packer-net.env" ]; then
    PACKER_MAC="" PACKER_ADDRESS="" PACKER_GATEWAY=""
    . "$seed/packer-net.env"
    nic=""
    for n in /sys/class/net/*; do
      [ "$(cat "$n/address")" = "$(echo "$PACKER_MAC" | tr A-F a-f)" ] && nic=${n##*/}
    done
    if [ -z "$nic" ]; then
      echo "packer-appliance: no NIC has MAC $PACKER_MAC"
    else
      ip link set "$nic" up
      ip addr add "$PACKER_ADDRESS" dev "$nic"
      [ -z "$PACKER_GATEWAY" ] || ip route add default via "$PACKER_GATEWAY"
      echo "packer-appliance: $nic $PACKER_MAC $PACKER_ADDRESS gateway ${PACKER_GATEWAY:-none}"
    fi
  fi
  [ ! -f "$seed/packer-hosts" ] || cat "$seed/packer-hosts" >> /etc/hosts
fi
echo "packer-appliance: $(hostname) job=${packer_job} index=${packer_index} role=${packer_role} master=${packer_master} is_master=${packer_is_master:-0}"
if [ -n "$seed" ] && [ -f "$seed/packer-job.sh" ]; then
  # The job prints its output and "packer-status: exit N seconds S" and
  # powers the VM off itself; if it returns, the linger below still runs.
  echo "packer-appliance: running: $seed/packer-job.sh"
  sh "$seed/packer-job.sh"
  echo "packer-appliance: exit $?"
elif [ -n "${packer_run:-}" ]; then
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

# An initrd built before it carried the modules gave its guests no disk, NIC
# or seed, and one built from another /init or module list runs another
# guest: rebuild it, and vmlinuz with it so that both come from one kernel
# package. The new files replace the old ones by rename, so that a run
# booting guests from them meanwhile reads one or the other whole.
rebuild=0
if [ ! -s "$dir/vmlinuz" ] || [ ! -s "$dir/initrd.img" ] ||
  [ "$(gzip -dc "$dir/initrd.img" | /bin/busybox cpio -t 2>/dev/null | grep -cE '/(virtio_blk|virtio_net|isofs)\.ko$')" != 3 ] ||
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
  root=""
  trap 'rm -rf "$tmp" ${root:+"$root"}' EXIT
  (cd "$tmp" && chmod 777 . && apt-get download -qq "$pkg" >/dev/null 2>&1 || { cd "$tmp" && apt-get download "$pkg"; })
  deb=$(ls "$tmp"/*.deb)
  want=('./boot/vmlinuz-*')
  for m in $mods; do want+=("./lib/modules/*/$m.ko"); done
  # A module the package lacks is named by the check below, not by tar.
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards "${want[@]}" 2>/dev/null || true
  root=$(mktemp -d)
  mkdir -p "$root"/{bin,proc,sys,dev,lib/modules}
  cp /bin/busybox "$root/bin/busybox"
  for m in $mods; do
    find "$tmp/lib/modules" -name "$m.ko" -exec cp {} "$root/lib/modules/" \; 2>/dev/null || true
    [ -s "$root/lib/modules/$m.ko" ] || { echo "build-appliance: $pkg has no $m.ko" >&2; exit 1; }
  done
  echo "$mods" > "$root/lib/modules/load"
  printf '%s\n' "$init" > "$root/init"
  chmod 755 "$root/init"
  (cd "$root" && find . | /bin/busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$dir/initrd.img.new"
  rm -rf "$root"
  cp "$tmp"/boot/vmlinuz-* "$dir/vmlinuz.new"
  mv -f "$dir/vmlinuz.new" "$dir/vmlinuz"
  mv -f "$dir/initrd.img.new" "$dir/initrd.img"
  echo "$init_sum" > "$dir/initrd.init.sha256.new"
  mv -f "$dir/initrd.init.sha256.new" "$dir/initrd.init.sha256"
fi

if [ ! -s "$dir/appliance.qcow2" ]; then
  qemu-img create -q -f qcow2 "$dir/appliance.qcow2" 64M
fi
ls -l "$dir"
