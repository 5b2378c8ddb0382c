#!/bin/sh
# Time that rises past some n: a map of 6M additions split among {nodes}
# workers, then an all-to-all shuffle of {nodes}² partition files, each
# written and forced to disk on its own (n² fsyncs), as a shuffle grows with
# the square of the cluster.
n=${1:?usage: shuffle.sh NODES}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
i=0
while [ "$i" -lt "$n" ]; do
	awk -v k=$((6000000 / n)) 'BEGIN { for (i = 0; i < k; i++) s += i }' &
	i=$((i + 1))
done
wait
i=0
while [ "$i" -lt "$n" ]; do
	j=0
	while [ "$j" -lt "$n" ]; do
		dd if=/dev/zero of="$dir/p$i-$j" bs=16k count=4 conv=fsync 2>/dev/null
		j=$((j + 1))
	done
	i=$((i + 1))
done
