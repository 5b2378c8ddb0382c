#!/usr/bin/env bash
# hostile.sh: a hostile review of the packer CLI, as a script that can be re-run.
#
#   go build -o /tmp/packer-h ./cmd/packer
#   PACKER=/tmp/packer-h test/hostile/hostile.sh [FILTER]     # about 10 minutes
#
# Every case runs the binary in a fresh empty directory, under `timeout` and
# `prlimit --as`, with TMPDIR pointing at an empty directory, and checks:
# no panic or goroutine dump; an allowed exit code; on exit 2 exactly one line
# on stderr naming what was wrong; nothing written in the case directory or
# TMPDIR when the command failed; no temp file (*.tmp-*) anywhere; the shared
# fixtures unchanged. Signal cases send SIGINT/SIGTERM part way and expect
# 130/143 (or 0 when the command was done first), no temp file and no
# half-written output. It prints one line per failing case and a tally, and
# keeps the work directory (log/N.cmd, N.out, N.err) when a case failed.
# Only a case whose text contains FILTER runs. Needs root (for cases run as
# nobody), bash, jq, setpriv, mkfifo; libvirt's test driver for apply cases.
set -u
P=${PACKER:-/tmp/packer-h}
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
W=${WORK:-$(mktemp -d /tmp/hostile.XXXXXX)}
FILTER=${1:-}
TO=${CASE_TIMEOUT:-30}
AS=${CASE_AS:-4000000000}
mkdir -p "$W/bin" "$W/log" "$W/c"
cp "$P" "$W/bin/packer"
P="$W/bin/packer"
FX="$W/fx"
N=0 PASS=0 FAILS=0
declare -a FAILED=()

fixtures() {
	rm -rf "$FX"
	mkdir -p "$FX/bad" "$FX/good"
	local g="$FX/good"
	cp "$REPO/examples/small.json" "$g/w.json"
	cp "$REPO/examples/small.plan.json" "$g/plan.json"
	cp "$REPO/cmd/packer/testdata/fit-observations.csv" "$g/obs.csv"
	cp "$REPO/sweep/testdata/plans.json" "$g/sweep-plans.json"
	cp "$REPO/examples/testdriver/"* "$g/"
	sed 's#test:h\([01]\).xml#test://'"$g"'/h\1.xml#' "$REPO/examples/testdriver/inventory.json" >"$g/inventory.json"
	jq '.hosts[0].uri = "test:///default"' "$g/inventory.json" >"$g/inv-default.json"
	cp "$REPO/workloads/traces/testdata/rumen-19-jobs.trace.json.gz" "$g/rumen.json.gz"
	cp "$REPO/workloads/traces/testdata/rumen-19-jobs.topology.json.gz" "$g/topo.json.gz"
	head -50 "$REPO/workloads/traces/testdata/swim-FB-2009_samples_24_times_1hr_0.tsv" >"$g/swim.tsv"
	printf 'j1 4 10 1 1\nj2 2 10 0.5 0\nj3 8 5 1 1\n' >"$g/hybs.txt"
	"$P" simulate -w W1 --format json >"$g/sim.json" 2>/dev/null
	"$P" workloads import --input-format hybs -o "$g/simw.json" "$g/hybs.txt" >/dev/null 2>&1
	"$P" workloads import --input-format swim -o "$g/fb10.json" "$REPO/workloads/traces/testdata/swim-FB-2010_samples_24_times_1hr_0.tsv" >/dev/null 2>&1
	cat >"$g/sweep-sim.json" <<-'EOF'
	{"name": "s", "run": "simulate", "workloads": ["W1"], "nodes": [10],
	 "policies": ["fifo", "fair"], "seeds": [1], "options": [{"name": "o"}]}
	EOF
	(cd "$g" && "$P" experiment run --shard 0/2 --seeds 1 --out exp dp-shares >/dev/null 2>&1)
	(cd "$g" && "$P" sweep run --shard 0/1 --out sres sweep-sim.json >/dev/null 2>&1)
	# A journal from the test driver: phase 1 times out, its VMs kept.
	(cd "$g" && "$P" apply --plan plan.json --inventory inventory.json --phase 1 --phase-timeout 1s \
		--keep-on-failure --auto-approve --state state.json >/dev/null 2>&1)
	local b="$FX/bad"
	: >"$b/empty"
	awk 'BEGIN{srand(1); for(i=0;i<4096;i++) printf "%c", int(rand()*256)}' >"$b/binary"
	head -c 100 "$g/w.json" >"$b/truncated.json"
	head -c 200 "$g/plan.json" >"$b/truncated-plan.json"
	truncate -s 3G "$b/huge-sparse"
	mkdir "$b/dir" "$b/dir.svg"
	ln -s "$b/nonexistent" "$b/dangling"
	ln -s loop2 "$b/loop1"; ln -s loop1 "$b/loop2"
	printf '\xef\xbb\xbf{"name":"x","jobs":[]}' >"$b/bom.json"
	printf '\xff\xfe{\x00"\x00' >"$b/utf16.json"
	awk 'BEGIN{for(i=0;i<200000;i++) printf "["; }' >"$b/deep.json"
	awk 'BEGIN{printf "{\"name\":\""; for(i=0;i<2000000;i++) printf "aaaaa"; printf "\"}"}' >"$b/longline.json"
	printf '{"name":"x","jobs":[{"name":"a","model":{"a":1e400,"b":-0.5}}]}' >"$b/bignum.json"
	printf '{"name":"x","jobs":[{"name":"a","model":{"a":NaN,"b":-0.5}}]}' >"$b/nan.json"
	printf '{"name":"x","jobs":[{"name":"a","model":{"a":60,"b":-0.5}}]} trailing' >"$b/trailing.json"
	printf '{"name":"x","jobs":[{"name":"a","model":{"a":60,"b":-0.5}},{"name":"a","model":{"a":6,"b":-0.5}}]}' >"$b/dupjob.json"
	printf '{"name":"x\\u0000y","jobs":[{"name":"\\u0000","model":{"a":60,"b":-0.5}}]}' >"$b/nul.json"
	printf 'job,nodes,seconds\n"unterminated,2,5\n' >"$b/badquote.csv"
	printf '\x1f\x8b\x08\x00garbage-gzip' >"$b/garbage.gz"
	head -c 300 "$g/rumen.json.gz" >"$b/truncated.gz"
	# gzip bomb: 1 GB of zeros compressed
	head -c 1000000000 /dev/zero | gzip -1 >"$b/bomb.gz"
	touch "$b/unreadable"; chmod 000 "$b/unreadable"
	chmod -R a+rX "$FX/good"; chmod a+rx "$FX" "$b"
}

snapshot() { find "$FX" -printf '%p %s %T@ %m %l\n' 2>/dev/null | sort | md5sum; }

# t CODES CMD...: run CMD (its first word "packer" is the binary) and check it.
# Environment knobs for one case: AS_USER=nobody, STDIN=file, WRITES=1 (the
# command may write in its directory even when it fails), SIG=INT|TERM and
# DELAY=seconds, JSONOUT=file (when it exists afterwards, it must be whole JSON),
# HELP=1 (exit 2 prints the command's help: a command group without its subcommand).
t() {
	local codes=$1; shift
	local text="$*"
	[[ -n $FILTER && $text != *"$FILTER"* ]] && return 0
	N=$((N + 1))
	local d="$W/c/$N" tmp="$W/c/$N.tmp"
	rm -rf "$d" "$tmp"; mkdir -p "$d" "$tmp"
	chmod 777 "$d" "$tmp"
	local args=("$@")
	[[ ${args[0]} == packer ]] && args[0]=$P
	local pre=()
	[[ ${AS_USER:-} == nobody ]] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	local in=${STDIN:-/dev/null}
	local rc
	printf '%s\n' "$text" >"$W/log/$N.cmd"
	if [[ -n ${SIG:-} ]]; then
		(cd "$d" && exec env TMPDIR="$tmp" prlimit --as="${CASE_AS:-$AS}" "${pre[@]}" "${args[@]}" <"$in" >"$W/log/$N.out" 2>"$W/log/$N.err") &
		local pid=$!
		sleep "${DELAY:-1}"
		kill -"$SIG" "$pid" 2>/dev/null
		(sleep "$TO"; kill -KILL "$pid" 2>/dev/null) &
		local wd=$!
		wait "$pid"; rc=$?
		kill "$wd" 2>/dev/null; wait "$wd" 2>/dev/null
	else
		(cd "$d" && exec env TMPDIR="$tmp" timeout -k 5 "$TO" prlimit --as="${CASE_AS:-$AS}" "${pre[@]}" "${args[@]}" <"$in" >"$W/log/$N.out" 2>"$W/log/$N.err")
		rc=$?
	fi
	local why=()
	[[ ",$codes," == *",$rc,"* ]] || why+=("exit $rc, want $codes")
	if grep -qE '^panic:|^goroutine [0-9]+ |^fatal error:|runtime\.[a-z]+\(' "$W/log/$N.err"; then why+=("panic/dump"); fi
	if [[ $rc == 2 && -z ${HELP:-} ]]; then
		local lines; lines=$(wc -l <"$W/log/$N.err")
		[[ $lines == 1 ]] || why+=("$lines lines on stderr")
	fi
	if [[ $rc != 0 && -z ${WRITES:-} && -z ${SIG:-} ]] && [[ -n $(ls -A "$d") ]]; then why+=("wrote on failure: $(ls -A "$d" | head -3 | tr '\n' ' ')"); fi
	[[ -n $(ls -A "$tmp") ]] && why+=("left in TMPDIR: $(ls -A "$tmp" | head -3 | tr '\n' ' ')")
	local left; left=$(find "$d" "$FX" -name '*.tmp-*' 2>/dev/null | head -3)
	[[ -n $left ]] && why+=("temp left: $left")
	if [[ -n ${JSONOUT:-} && -e $d/$JSONOUT ]] && ! jq -e . "$d/$JSONOUT" >/dev/null 2>&1; then why+=("half-written $JSONOUT"); fi
	local now; now=$(snapshot)
	if [[ $now != "$SNAP" ]]; then why+=("fixtures changed"); SNAP=$now; fi
	if ((${#why[@]})); then
		FAILS=$((FAILS + 1))
		local msg; msg="#$N [${why[*]}] ${SIG:+SIG$SIG@${DELAY:-1}s }$text :: $(head -c 300 "$W/log/$N.err" | tr '\n' '|')"
		FAILED+=("$msg")
		echo "FAIL $msg"
	else
		PASS=$((PASS + 1))
		rm -rf "$d" "$tmp"
	fi
}

fixtures
SNAP=$(snapshot)
g=$FX/good b=$FX/bad
export -n AS_USER STDIN WRITES SIG DELAY JSONOUT HELP

# ---- 1. Every file flag against every bad file ------------------------------
badfiles=(nonexistent empty binary truncated.json huge-sparse dir dangling loop1 bom.json utf16.json
	deep.json longline.json bignum.json nan.json trailing.json dupjob.json nul.json badquote.csv
	garbage.gz truncated.gz)
readers=(
	"packer plan -w F"
	"packer plan -a pair -w F"
	"packer size -w F --deadline 4h"
	"packer compare -w F --algorithms pair"
	"packer simulate -w F"
	"packer simulate --plan F"
	"packer simulate -p hybs --hybs-jobs F -w $g/simw.json"
	"packer workloads merge F"
	"packer workloads merge $g/w.json F"
	"packer workloads import --input-format swim F"
	"packer workloads import --input-format rumen F"
	"packer workloads import --input-format hybs F"
	"packer workloads import --input-format rumen --topology F $g/rumen.json.gz"
	"packer fit -i F"
	"packer fit -i $g/obs.csv --check F"
	"packer fit --rumen F"
	"packer report --plan F"
	"packer report --plan $g/plan.json --simulation F"
	"packer report --plan $g/plan.json --profile F"
	"packer sweep run F"
	"packer sweep show F"
	"packer sweep emit slurm --shards 2 --out res F"
	"packer apply --plan F --inventory $g/inventory.json --dry-run"
	"packer apply --plan $g/plan.json --inventory F --dry-run"
	"packer hosts check -i F"
	"packer hosts check -i $g/inventory.json --plan F"
	"packer status --state F"
	"packer status --plan F"
	"packer destroy --state F --auto-approve"
	"packer destroy --plan F --auto-approve"
	"packer profile -j x -n 1,2 -i F --dry-run -- true"
)
nfifo=0
for r in "${readers[@]}"; do
	for f in "${badfiles[@]}"; do
		# shellcheck disable=SC2086
		t 2 ${r//F/$b/$f}
	done
	# devices and special files
	t 2 ${r//F//dev/zero}
	t 2 ${r//F//dev/null}
	t 2 ${r//F//dev/urandom}
	t 2 ${r//F/$b/bomb.gz}
	AS_USER=nobody t 2 ${r//F/$b/unreadable}
	# a FIFO fed garbage (its writer gives up after 40 s when no case reads it)
	fifo=$W/fifo$((++nfifo)); mkfifo "$fifo"
	(timeout 40 sh -c "head -c 100000 /dev/urandom >$fifo" 2>/dev/null &)
	t 2 ${r//F/$fifo}
done

# ---- 2. Good inputs, through symlinks and stdin ------------------------------
ln -sf "$g/w.json" "$W/link.json"
t 0 packer plan -w "$W/link.json"
STDIN=$g/w.json t 0 packer plan -w -
STDIN=$g/w.json t 0 packer compare -w - --algorithms pair
STDIN=$g/obs.csv t 0 packer fit -i -
STDIN=$b/binary t 2 packer plan -w -
STDIN=/dev/zero t 2 packer plan -w -
STDIN=/dev/zero t 2 packer fit -i -
STDIN=/dev/urandom t 2 packer compare -w -
STDIN=$g/w.json t 2 packer workloads merge - -
t 0 packer plan -w "$g/w.json" -a pair
t 0 packer workloads import --input-format rumen "$g/rumen.json.gz" --topology "$g/topo.json.gz"
t 0 packer workloads import --input-format swim "$g/swim.tsv"
t 0 packer fit --rumen "$g/rumen.json.gz"
t 0 packer status --state "$g/state.json"
t 0 packer experiment merge "$g/exp"
t 0 packer sweep merge "$g/sres"
t 2 packer experiment merge "$b/dir"
t 2 packer experiment merge "$b/empty"
t 2 packer experiment merge "$b/nonexistent"
t 2 packer experiment merge /dev/null
t 2 packer sweep merge "$b/dir"
t 2 packer sweep merge "$b/empty"
t 2 packer sweep merge /dev/zero
mkdir -p "$W/badres"; cp -r "$g/sres/." "$W/badres/"; for f in "$W/badres"/*; do [[ -f $f ]] && head -c 50 "$f" >"$f.x" && mv "$f.x" "$f"; done
t 2 packer sweep merge "$W/badres"
mkdir -p "$W/badexp"; cp -r "$g/exp/." "$W/badexp/"; for f in "$W/badexp"/*; do [[ -f $f ]] && printf '\x00\x01' >"$f"; done
t 2 packer experiment merge "$W/badexp"

# ---- 3. Outputs --------------------------------------------------------------
mkdir -p "$W/ro"; chmod 555 "$W/ro"
writers=(
	"packer plan -w $g/w.json -a pair -o O"
	"packer plan -w $g/w.json -a pair --export-lp O"
	"packer plan -w $g/w.json -a pair --chart O"
	"packer size -w $g/w.json --deadline 4h --chart O"
	"packer simulate -w W1 --jobs-csv O"
	"packer simulate -w W1 --trace O"
	"packer simulate -w W1 --chart O"
	"packer simulate -w W1 --arff O"
	"packer compare -w W1 --algorithms pair,sequential --chart O"
	"packer fit -i $g/obs.csv -o O"
	"packer fit -i $g/obs.csv --chart O"
	"packer report --plan $g/plan.json -o O"
	"packer workloads merge $g/w.json W1 -o O"
	"packer workloads import --input-format hybs $g/hybs.txt -o O"
	"packer workloads import --input-format hybs $g/hybs.txt --hybs O"
	"packer sweep run $g/sweep-sim.json --jsonl O"
	"packer sweep run $g/sweep-sim.json --csv O"
	"packer sweep merge $g/sres --csv O"
	"packer profile -j x -n 1,2 -o O -- sleep 0.05"
)
for wr in "${writers[@]}"; do
	x=; [[ $wr == *--chart* ]] && x=.svg
	dash=0,2; [[ $wr == *" -o O"* ]] && dash=0
	t 2 ${wr//O/$b/dir$x}
	t 2 ${wr//O/$W/nonexistent-dir/x$x}
	AS_USER=nobody t 2 ${wr//O/$W/ro/x$x}
	t 2 ${wr//O/$(printf 'x%.0s' {1..300})$x}
	t 0 ${wr//O//dev/null}
	t 1,2 ${wr//O//dev/full}
	WRITES=1 t 0 ${wr//O/ünïcødé-名前$x}
	WRITES=1 t $dash ${wr//O/-}
done
# --out DIR: read-only, to be made in a read-only one, a file; refused before any run
for o in "$W/ro" "$W/ro/res" "$g/w.json"; do
	AS_USER=nobody t 2 packer experiment run dp-shares --seeds 1 --shard 0/1 --out "$o"
	AS_USER=nobody t 2 packer sweep run "$g/sweep-sim.json" --shard 0/1 --out "$o"
	AS_USER=nobody t 2 packer sweep emit slurm --shards 2 --out "$o/x" "$g/sweep-sim.json"
done
# an output symlink is written through, never replacing the link
t 0 bash -c "ln -s target.json out.json && $P plan -w $g/w.json -a pair -o out.json && test -L out.json && jq -e . target.json >/dev/null"
# same file as input and output
t 0 bash -c "cp $g/w.json w.json && $P workloads merge w.json -o w.json && jq -e .jobs w.json >/dev/null"
# a failing run leaves an existing output as it was
t 0 bash -c "echo keep >o.json && ! $P plan -w $b/binary -o o.json 2>/dev/null && grep -qx keep o.json"
t 0 bash -c "echo keep >o.csv && ! $P simulate -w $b/binary --trace o.csv 2>/dev/null && grep -qx keep o.csv"
# FIFO output with a reader
t 0 bash -c "mkfifo f && (cat f >got &) && $P plan -w $g/w.json -a pair -o f && sleep 0.2 && jq -e . got >/dev/null"

# ---- 4. Numbers --------------------------------------------------------------
nums=(-1 0 -0 1e308 NaN Inf -Inf 99999999999999999999 0x10 "" " 5" 1.5 9223372036854775807 1e-300)
numflags_plan=(--hosts --disks --ratio --alpha --cores --memory --particles --iterations --seed --time-limit --max-memory)
for f in "${numflags_plan[@]}"; do
	for v in "${nums[@]}"; do
		t 0,2 packer plan -w "$g/w.json" -a pso --particles 20 --iterations 5 --time-limit 5s "$f" "$v"
	done
done
numflags_sim=(--nodes --racks --map-slots --reduce-slots --replication --delay --rack-delay --heartbeat
	--rack-factor --remote-factor --waves --seed --max-memory --slowstart --tyrex-timer)
for f in "${numflags_sim[@]}"; do
	for v in "${nums[@]}"; do
		t 0,2 packer simulate -w W1 -p fifo,fair,tyrex-static "$f" "$v"
	done
done
for f in --nodes --racks --map-slots --reduce-slots --replication --block-size-mb --reduce-size-mb \
	--map-mbps --reduce-mbps --task-seconds --from --to --max-jobs --service-level; do
	for v in -1 0 NaN 1e308 99999999999999999999; do
		t 0,2 packer workloads import --input-format swim "$g/swim.tsv" "$f" "$v"
	done
done
for f in --repeat --points --budget --vcpus-per-node --cpu-threshold --io-threshold --reference-nodes --run-timeout; do
	for v in -1 0 NaN 1e308 99999999999999999999; do
		t 0,2 packer profile -j x -n 1,2 --dry-run "$f" "$v" -- true
	done
done
for v in -1 0 1,1 2,1 99999999999 1e3 "" ,,, 1,,2 NaN; do
	t 0,2 packer profile -j x -n "$v" --dry-run -- true
	t 0,2 packer fit --rumen "$g/rumen.json.gz" --nodes "$v"
	t 0,2 packer size -w "$g/w.json" --deadline 4h --disks-options "$v"
done
for v in -1 0 NaN 1e308 99999999999999999999 1000001; do
	t 0,2 packer size -w "$g/w.json" --deadline 4h --max-hosts "$v"
	t 0,2 packer size -w "$g/w.json" --deadline "$v"
	TO=120 t 0,2 packer bench --quick --random "$v"
	t 0,2 packer experiment run dp-shares --seeds "$v"
	t 0,2 packer sweep show "$g/sweep-plans.json" --shards "$v"
	t 0,2 packer apply --plan "$g/plan.json" --inventory "$g/inventory.json" --dry-run --phase "$v"
	t 0,2 packer apply --plan "$g/plan.json" --inventory "$g/inventory.json" --dry-run --parallel "$v"
	t 0,2 packer hosts check -i "$g/inventory.json" --connect-timeout "$v"
	t 0,2 packer plan -w "random-m$v-seed1" -a pair
	t 0,2 packer plan -w "random-m5-seed$v" -a pair
done
for v in 0/0 1/1 -1/2 2/1 a/b 0/99999999999 "0/2/3" /; do
	t 0,2 packer experiment run dp-shares --seeds 1 --shard "$v" --out res
	WRITES=1 t 0,2 packer sweep run "$g/sweep-sim.json" --shard "$v" --out res
done

# ---- 5. Names, flags, arguments ----------------------------------------------
long=$(printf 'n%.0s' {1..5000})
t 2 packer plan -w "$long"
t 2 packer workloads show "$long"
t 2 packer workloads show "Ｗ１"
t 2 packer plan -w ""
t 2 packer plan -w "random-m-seed"
t 2 packer simulate -p ""
t 2 packer simulate -p "fifo,,fair"
t 2 packer simulate -p "nosuch"
t 2 packer simulate -p "fair:-1"
t 2 packer simulate -p "fair:NaN"
t 2 packer simulate -p "fair:1e400"
t 2 packer simulate --spending "a=-1"
t 2 packer simulate --spending "=1"
t 2 packer simulate --spending "a=NaN,a=2"
t 2 packer simulate --rank-by nosuch
t 2 packer simulate --format xml
t 2 packer plan --format xml
t 2 packer plan -a nosuch
t 0 packer plan -w W1 -a pair -a sequential
t 0 packer workloads show W2 --format json
t 0 packer workloads show --format table W2
t 2 packer workloads show W2 W3
t 2 packer workloads show
t 2 packer workloads nosuch
t 2 packer plna
t 2 packer plan --nosuch
t 2 packer plan -w
HELP=1 t 2 packer hosts
HELP=1 t 2 packer experiment
HELP=1 t 2 packer sweep
HELP=1 t 2 packer sweep emit
t 2 packer sweep emit nosuch "$g/sweep-sim.json"
t 2 packer experiment run nosuch
t 0 packer experiment list
t 0 packer version
t 0 packer --version
t 0 packer completion bash
t 2 packer completion nosuch
t 2 packer completion
t 2 packer status
t 2 packer destroy --auto-approve
t 2 packer apply
t 2 packer apply --plan "$g/plan.json"
t 2 packer report
t 2 packer fit
t 2 packer profile
t 2 packer profile -j x
t 2 packer profile -j "" -n 1 -- true
t 2 packer profile -j "a/b" -n 1 -- true
t 2 packer workloads import "$g/hybs.txt"
t 2 packer workloads import --input-format nosuch "$g/hybs.txt"
t 2 packer plan extra-argument
t 2 packer simulate extra
t 2 packer size -w W1
t 2 packer fit -i "$g/obs.csv" --model nosuch
t 2 packer plan --deadline -4h
t 2 packer plan --deadline 1e400
t 2 packer plan --time-limit 5parsecs
t 0,2 packer plan -w W1 --hosts 9 --hosts 1
t 2 packer sweep run
t 2 packer sweep run "$g/sweep-sim.json" --metric nosuch --chart x.svg
t 2 packer sweep run "$g/sweep-sim.json" --format xml
t 2 packer simulate -w W1 --chart x.bmp
t 2 packer plan -w W1 --chart x
# the failure line names the file and the field
t 0 bash -c "$P plan -w $b/bignum.json 2>&1 | grep -q bignum.json"
t 0 bash -c "$P plan -w $b/nan.json 2>&1 | grep -q nan.json"
t 0 bash -c "$P fit -i $b/badquote.csv 2>&1 | grep -q badquote.csv"

# ---- 6. Dry runs run nothing, completion never acts ----------------------------
t 0 bash -c "$P profile -j x -n 1,2 --dry-run -- touch made >/dev/null; test ! -e made"
t 0 bash -c "$P profile -j x -n 1,2 --dry-run --run 'touch made' >/dev/null; test ! -e made"
t 0 bash -c "$P profile -j x -n 1,2 --dry-run -i $g/inventory.json -- touch made >/dev/null; test ! -e made"
for line in "profile -j x -n 1,2 -- touch made" "profile -j x -n 1,2 --run 'touch made'" \
	"profile -- touch made" "plan -w W1 -o made --" "plan -o made" "simulate --trace made --" \
	"fit -i $g/obs.csv -o made --" "workloads merge W1 -o made --" "report --plan $g/plan.json -o made --" \
	"sweep run $g/sweep-sim.json --out made --" "experiment run --out made --shard 0/1 --" \
	"apply --plan $g/plan.json --inventory $g/inventory.json --auto-approve --state made --" \
	"destroy --state $g/state.json --auto-approve --" "destroy --state $g/state.json --auto-approve" \
	"profile -j x -n 1 -- sh -c 'date >> made'" "workloads import --input-format hybs $g/hybs.txt -o made --"; do
	t 0 bash -c "$P $line --generate-bash-completion >/dev/null 2>&1; test ! -e made"
	t 0 bash -c "$P $line -- --generate-bash-completion >/dev/null 2>&1; test ! -e made"
done

# ---- 7. apply/destroy against libvirt's test driver --------------------------
t 0 packer apply --plan "$g/plan.json" --inventory "$g/inventory.json" --dry-run
# test:///default's one host has none of the inventory's pools: refused, one line
t 2 packer apply --plan "$g/plan.json" --inventory "$g/inv-default.json" --dry-run
t 0 bash -c "$P apply --plan $g/plan.json --inventory $g/inventory.json --dry-run --state s.json >/dev/null && test ! -e s.json"
t 0 packer hosts check -i "$g/inventory.json" --plan "$g/plan.json"
t 2 packer apply --plan "$g/plan.json" --inventory "$g/inv-default.json" --auto-approve --phase 1 --phase-timeout 1s --state s.json
WRITES=1 t 0,1 packer apply --plan "$g/plan.json" --inventory "$g/inventory.json" --auto-approve --phase-timeout 1s --state s.json
t 0 bash -c "cp $g/state.json s.json && $P destroy --state s.json --auto-approve >/dev/null && $P status --state s.json >/dev/null"
t 2 packer apply --plan "$g/plan.json" --inventory "$g/inventory.json" --phase 1
t 2 packer destroy --state "$g/state.json"
t 2 packer apply --plan "$g/plan.json" --inventory "$g/inventory.json" --resume --auto-approve --state nonexistent.json
t 2 packer apply --plan "$g/plan.json" --inventory "$g/inventory.json" --auto-approve --state "$b/dir"
t 0 bash -c "jq '.hosts[0].uri=\"qemu+ssh://nosuchhost.invalid/system\"' $g/inventory.json >i.json; $P hosts check -i i.json --connect-timeout 2s >/dev/null 2>&1; test \$? -le 2"
for mut in '.hosts=[]' '.hosts[0].cores=-1' '.hosts[0].memory_mib=1e12' '.hosts[0].disks=[]' \
	'.hosts[0].name=""' '.hosts[1].name=.hosts[0].name' '.image=""' '.hosts[0].uri="x"' \
	'.hosts[0].disks=[range(200)|tostring]' '.hosts[0].hypervisor="vmware"' '.hosts[0].name="a b/../c"'; do
	t 0 bash -c "jq '$mut' $g/inventory.json >i.json; $P apply --plan $g/plan.json --inventory i.json --dry-run >/dev/null 2>e; test \$? = 2 && test \$(wc -l <e) = 1"
done
for mut in '.phases=[]' '.phases[0].jobs=[]' '.id=""' '.id="../../etc/x"' '.cluster.hosts=-1' \
	'.cluster.disks_per_host=100000' '.phases[0].jobs[0].vms=-3' '.makespan=-1' '.phases=.phases+.phases'; do
	t 0 bash -c "jq '$mut' $g/plan.json >p.json; $P apply --plan p.json --inventory $g/inventory.json --dry-run >/dev/null 2>e; test \$? = 2 && test \$(wc -l <e) = 1"
	t 0,2 bash -c "jq '$mut' $g/plan.json >p.json; $P simulate --plan p.json -p plan >/dev/null 2>e; r=\$?; test \$r = 0 || { test \$r = 2 && test \$(wc -l <e) = 1; }"
done
for mut in '.jobs=[]' '.jobs[0].model.a=-1' '.jobs[0].model.b=-1e308' '.jobs[0].model.b=5' '.name="a\tb"' \
	'.jobs[0].name=""' '.jobs[0].model.a=1e308' '.jobs[0].io_intesive=true' '.jobs[0].name="a\nb"' '.jobs=[range(100000)|{name:tostring,model:{a:60,b:-0.5}}]'; do
	t 0 bash -c "jq '$mut' $g/w.json >w.json; $P plan -w w.json >/dev/null 2>e; test \$? = 2 && test \$(wc -l <e) = 1"
done

# ---- 8. Signals part way -----------------------------------------------------
for s in INT TERM; do
	for d in 0.05 0.3 1 2; do
		SIG=$s DELAY=$d JSONOUT=p.json t 0,130,143 packer plan -w random-m300-seed1 -a pso --time-limit 20s -o p.json
		SIG=$s DELAY=$d t 0,130,143 packer simulate -w "$g/fb10.json" -p fifo,fair --trace t.csv --jobs-csv j.csv
		SIG=$s DELAY=$d t 0,130,143 packer experiment run --seeds 2
		SIG=$s DELAY=$d t 0,130,143 packer experiment run --seeds 2 --shard 0/1 --out res
		SIG=$s DELAY=$d t 0,130,143 packer sweep run "$g/sweep-plans.json" --jsonl r.jsonl --csv r.csv
		SIG=$s DELAY=$d t 0,130,143 packer sweep run --shard 0/1 --out res "$g/sweep-sim.json"
		SIG=$s DELAY=$d t 0,130,143 packer size -w random-m40-seed1 --deadline 1h --chart s.svg
		SIG=$s DELAY=$d t 0,130,143 packer workloads import --input-format swim -o w.json "$REPO/workloads/traces/testdata/swim-FB-2010_samples_24_times_1hr_0.tsv"
		SIG=$s DELAY=$d t 0,130,143 packer compare -w W1,W3 --chart c.svg
		SIG=$s DELAY=$d t 0,130,143 packer bench --quick
		SIG=$s DELAY=$d t 0,130,143 packer profile -j x -n 1,2,3 -o p.json -- sleep 1
	done
done

# ---- 9. Memory and time bounds ------------------------------------------------
CASE_AS=3000000000 t 2 packer plan -w /dev/zero
t 0,2 packer plan -w random-m100000-seed1 -a pso --time-limit 5s
t 0,2 packer plan -w random-m100000-seed1 -a exact
t 0,2 packer simulate -w random-m100000-seed1 -p fifo
t 0,2 packer simulate -w W1 --nodes 100000000
t 0,2 packer simulate -w W1 --nodes 1000000 --map-slots 1000000
t 0,2 packer compare -w random-m100000-seed1 --algorithms pair,pso --time-limit 2s
t 0,2 packer size -w random-m200-seed1 --deadline 1s --max-hosts 100000
t 0,2 packer plan -w W1 --hosts 100000000 -a pair
t 0,2 packer plan -w W1 --hosts 1000000 --disks 128 -a pair
t 0,2 packer plan -w W1 --memory 9223372036854775807 -a pair
t 0,2 packer plan -w W1 --particles 1000000000 --iterations 1000000000 -a pso --time-limit 2s

echo "cases: $N  passed: $PASS  failed: $FAILS  (work dir $W)"
if ((FAILS == 0)); then rm -rf "$W"; else exit 1; fi
