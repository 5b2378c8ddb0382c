#!/bin/sh
# CPU-bound with a serial part: 2M additions alone, then 8M split evenly
# among {nodes} workers run at once (on a 2-core box, past 2 workers the
# parallel part stops shrinking: the shape a power law cannot bend to).
n=${1:?usage: cpu-serial.sh NODES}
awk 'BEGIN { for (i = 0; i < 2000000; i++) s += i }'
i=0
while [ "$i" -lt "$n" ]; do
	awk -v k=$((8000000 / n)) 'BEGIN { for (i = 0; i < k; i++) s += i }' &
	i=$((i + 1))
done
wait
