#!/usr/bin/env bash
# Runs packer's integration tests (go test -tags integration) against a real
# libvirtd with QEMU. Builds the appliance (build-appliance.sh), then uses the
# local libvirtd if one answers on qemu:///system, or else starts virtlogd and
# libvirtd itself in the background and stops exactly those two by PID when
# done (no systemd needed). KVM is used when libvirt offers it and a canary
# guest boots and powers off under it within 20 s; otherwise TCG, with one line
# in the test log saying why (a /dev/kvm that exists but hangs guests, as under
# nested virtualisation, is caught by the canary). PACKER_ITEST_ACCEL=kvm|tcg
# forces the choice. Each test binary first takes a machine-wide lock
# (/run/lock/packer-itest.lock; a second run fails at once rather than remove
# the first one's domains), then removes what a killed earlier run left: the
# foreign domain, canaries and VMs of this appliance, its work directories.
# Needs root (libvirtd, /dev/kvm) and the packages in the Makefile's
# ITEST_APT_PACKAGES. Environment: PACKER_ITEST_APPLIANCE (default
# /var/tmp/packer-itest), PACKER_ITEST_ACCEL, PACKER_ITEST_RUN (the tests to
# run, a go test -run pattern; default Integration, all of them), GO
# (default go), GOTESTFLAGS
# (default -v -timeout 40m: the profile tests boot a score of TCG guests, past
# go test's default 10 m on a loaded machine).
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
export PACKER_ITEST_APPLIANCE=${PACKER_ITEST_APPLIANCE:-/var/tmp/packer-itest}
export PACKER_ITEST_URI=qemu:///system

test/itest/build-appliance.sh "$PACKER_ITEST_APPLIANCE" >/dev/null

if [ -e /dev/kvm ]; then
  # libvirt re-probes QEMU on every call unless /dev/kvm is group kvm, 0660.
  getent group kvm >/dev/null && chgrp kvm /dev/kvm && chmod 0660 /dev/kvm || true
fi

run=$(mktemp -d /tmp/packer-itest-daemons.XXXXXX)
pids=()
stop_daemons() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    # wait only works for our own children, which these are.
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$run"
}
trap stop_daemons EXIT

if virsh -c qemu:///system version >/dev/null 2>&1; then
  echo "itest: using the running libvirtd"
else
  virtlogd >"$run/virtlogd.log" 2>&1 &
  pids+=($!)
  libvirtd >"$run/libvirtd.log" 2>&1 &
  pids+=($!)
  echo "itest: started virtlogd (pid ${pids[0]}) and libvirtd (pid ${pids[1]})"
  for _ in $(seq 1 100); do
    virsh -c qemu:///system version >/dev/null 2>&1 && break
    kill -0 "${pids[1]}" 2>/dev/null || { cat "$run/libvirtd.log" >&2; exit 1; }
    sleep 0.2
  done
  virsh -c qemu:///system version >/dev/null || { cat "$run/libvirtd.log" >&2; exit 1; }
fi

# shellcheck disable=SC2086
# -p 1: the packages share one libvirtd, its pools and the foreign domain.
$GO test -tags integration -count=1 -p 1 ${GOTESTFLAGS:--v -timeout 40m} -run "${PACKER_ITEST_RUN:-Integration}" ./xenlibvirt/... ./cmd/packer/...
