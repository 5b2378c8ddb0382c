#!/bin/sh
# convert.sh C3O_DIR OUT_DIR: turns the C3O Spark runtimes (grep.tsv, sort.tsv,
# pagerank.tsv; see their README) into packer fit's observations CSV, one job
# per configuration (every column but instance_count, gross_runtime, slots and
# memory, joined by "-"), and splits each family into the runs at 2-8 nodes
# (FAMILY-le8.csv, to fit) and all runs (FAMILY-all.csv, to --check); all-le8.csv
# and all-all.csv hold the three families together.
set -eu
src=$1 out=$2
mkdir -p "$out"
for fam in grep sort pagerank; do
	awk -F'\t' -v fam="$fam" '
	NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; print "job,nodes,seconds"; next }
	{
		key = fam
		for (i = 1; i <= NF; i++) {
			if (h[i] == "instance_count") n = $i
			else if (h[i] == "gross_runtime") s = $i
			else if (h[i] != "slots" && h[i] != "memory") key = key "-" $i
		}
		print key "," n "," s
	}' "$src/$fam.tsv" >"$out/$fam-all.csv"
	awk -F, 'NR == 1 || $2 <= 8' "$out/$fam-all.csv" >"$out/$fam-le8.csv"
done
for part in le8 all; do
	{
		echo "job,nodes,seconds"
		for fam in grep sort pagerank; do tail -n +2 "$out/$fam-$part.csv"; done
	} >"$out/all-$part.csv"
done
