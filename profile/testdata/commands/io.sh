#!/bin/sh
# I/O-bound: 96 MB written to disk in {nodes} parts by {nodes} writers at
# once, each part forced to disk (fsync), then read back. One disk serves
# them all, so more "nodes" mostly add contention.
n=${1:?usage: io.sh NODES}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
i=0
while [ "$i" -lt "$n" ]; do
	dd if=/dev/zero of="$dir/part$i" bs=64k count=$((1536 / n)) conv=fsync 2>/dev/null &
	i=$((i + 1))
done
wait
cat "$dir"/part* >/dev/null
