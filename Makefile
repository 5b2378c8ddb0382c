# packer's build. `make plan` and `make test` set up what they need on a fresh
# Debian machine with Go, then run: `make plan` nothing (planning builds without
# cgo), `make test` the C library libvirt-dev that the default build links for the
# libvirt executor and the solvers and tools the tests cross-check against (cbc,
# glpsol, virt-xml-validate, xmllint, chromium).

GO ?= go
STATICCHECK_VERSION ?= v0.8.2
PLAN_APT_PACKAGES := libvirt-dev pkg-config
APT_PACKAGES := $(PLAN_APT_PACKAGES) coinor-cbc glpk-utils libvirt-clients chromium libxml2-utils genisoimage

.PHONY: plan test deps check build bench fuzz docs

# plan builds packer without cgo (planning needs no C library; such a build says
# how to get libvirt when asked to apply) and plans W1.
plan:
	@mkdir -p bin
	CGO_ENABLED=0 $(GO) build -o bin/packer ./cmd/packer
	bin/packer plan

test: deps check
	$(GO) test -count=1 ./...

# docs reruns the packer commands whose output README.md and docs/*.md show
# (the blocks after <!-- packer: ARGS --> markers) and rewrites those blocks;
# `go test ./internal/docs` fails while they are stale.
docs:
	$(MAKE) --no-print-directory deps APT_PACKAGES="$(PLAN_APT_PACKAGES)"
	$(GO) test -count=1 ./internal/docs -run TestGeneratedOutputs -update

# deps installs the Debian packages of APT_PACKAGES that are missing, as root or
# through sudo, waiting up to ten minutes for another apt (unattended upgrades on
# a fresh machine) to let go of the dpkg lock instead of failing at once.
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	$(GO) mod download

# check also vets optimize's pure-Go kernels (maxplus_generic.go), which
# the default amd64 build leaves out, as purego and arm64 builds compile them.
check:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags purego ./optimize
	GOARCH=arm64 $(GO) vet ./optimize
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

build: deps
	$(GO) build -o bin/packer ./cmd/packer

bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 1x -pgo='$(PGO_FLAG)' ./...

# fuzz-profile runs the fuzzers of the profiling parsers, FUZZTIME each; their seed
# corpora already run in `make test`.
FUZZTIME ?= 30s
.PHONY: fuzz-profile
fuzz-profile:
	$(GO) test ./profile -run '^$$' -fuzz FuzzReadObservations -fuzztime $(FUZZTIME)
	$(GO) test ./cmd/packer -run '^$$' -fuzz FuzzParseNodes -fuzztime $(FUZZTIME)

# packer's profile for profile-guided optimisation (PGO): go build applies
# the default.pgo beside a main package to it and everything it links, so packer is
# built with this one. The benchmarks below pass it too (go test looks for
# default.pgo only beside a main package, and ./sim is not one), so that they
# measure the code as packer runs it; PGO_FLAG=off measures it without (as a
# before/after comparison of a change to the simulator should, both sides alike:
# the profile was taken of the code before the change).
PGO_PROFILE := cmd/packer/default.pgo
PGO_FLAG ?= $(CURDIR)/$(PGO_PROFILE)

# fuzz-sim runs the simulation workload reader's fuzzer, FUZZTIME; bench-sim the
# simulator's benchmark at 10⁴ to 10⁷ tasks (events/s, peak heap).
.PHONY: fuzz-sim bench-sim pgo
fuzz-sim:
	$(GO) test ./sim -run '^$$' -fuzz FuzzParseWorkload -fuzztime $(FUZZTIME)
bench-sim:
	$(GO) test ./sim -run '^$$' -bench 'Run/' -benchtime 1x -pgo='$(PGO_FLAG)'

# pgo rewrites the profile: the CPU profile of the simulator's benchmarks, where
# packer spends its long runs (simulate and experiment), BenchmarkRun at 10⁶ and 10⁷
# tasks and BenchmarkIssue6Policies (-bench takes the two patterns joined by |). Rerun
# it when the simulator's hot paths change: a stale profile costs speed, never
# correctness. It profiles a build without the profile (the guide's advice is the
# optimised build; a profile of that, tried once, made fair sharing slower, see
# docs/simulating.md). A CPU profile is a build input, not a build output: it is
# committed, as Go's PGO guide (go.dev/doc/pgo) advises, so that every build of a
# commit is the same; docs/simulating.md says where and how it was taken.
pgo:
	tmp=$$(mktemp -d) && out=$$(mktemp '$(PGO_PROFILE).XXXXXX') && \
	trap 'rm -rf "$$tmp" "$$out"' EXIT INT TERM && \
	$(GO) test ./sim -run '^$$' -bench 'Run/tasks=(1000000|10000000)$$/|Issue6Policies' -benchtime 1x \
	  -pgo=off -o "$$tmp/sim.test" -cpuprofile "$$tmp/cpu.pprof" && \
	cp "$$tmp/cpu.pprof" "$$out" && mv "$$out" '$(PGO_PROFILE)'

# itest runs the libvirt integration tests: a real libvirtd with QEMU (KVM if a canary
# guest boots under it, else TCG; PACKER_ITEST_ACCEL=kvm|tcg forces) deploys a two-phase
# plan of a tiny busybox appliance.
# test/itest/run.sh builds the appliance and starts/stops virtlogd and libvirtd by PID.
# TestIntegrationSweepSlurm (cmd/packer) starts munged, slurmctld and slurmd by PID on
# a private socket and ports and submits packer sweep emit slurm's array to them.
# Needs root. fuzz-apply runs the inventory, journal, metadata, status-line,
# seed-volume and user-data fuzzers.
ITEST_APT_PACKAGES := libvirt-daemon-system libvirt-daemon-system-sysv libvirt-clients qemu-system-x86 qemu-utils busybox-static slurm-wlm munge
.PHONY: itest fuzz-apply
itest:
	$(MAKE) deps APT_PACKAGES="$(APT_PACKAGES) $(ITEST_APT_PACKAGES)"
	GO=$(GO) test/itest/run.sh
fuzz-apply:
	$(GO) test ./xenlibvirt -run '^$$' -fuzz FuzzParseInventory -fuzztime $(FUZZTIME)
	$(GO) test ./xenlibvirt -run '^$$' -fuzz FuzzParseJournal -fuzztime $(FUZZTIME)
	$(GO) test ./xenlibvirt -run '^$$' -fuzz FuzzParseMetadata -fuzztime $(FUZZTIME)
	$(GO) test ./xenlibvirt -run '^$$' -fuzz FuzzParseStatus -fuzztime $(FUZZTIME)
	$(GO) test ./xenlibvirt -run '^$$' -fuzz FuzzNoCloudISO -fuzztime $(FUZZTIME)
	$(GO) test ./xenlibvirt -run '^$$' -fuzz FuzzUserData -fuzztime $(FUZZTIME)

# fuzz-workloads runs the trace readers' fuzzers, FUZZTIME each; bench-workloads
# imports and simulates the full FB-2010 day (POLICIES, default fifo,fair,tyrex-dynamic).
POLICIES ?= fifo,fair,tyrex-dynamic
.PHONY: fuzz-workloads bench-workloads
fuzz-workloads:
	$(GO) test ./workloads/traces -run '^$$' -fuzz FuzzReadSWIM -fuzztime $(FUZZTIME)
	$(GO) test ./workloads/traces -run '^$$' -fuzz FuzzReadRumen -fuzztime $(FUZZTIME)
	$(GO) test ./workloads/traces -run '^$$' -fuzz FuzzReadTopology -fuzztime $(FUZZTIME)
	$(GO) test ./workloads/traces -run '^$$' -fuzz FuzzReadHybS -fuzztime $(FUZZTIME)
bench-workloads:
	$(GO) test ./workloads/traces -run '^$$' -bench FB2010 -benchtime 1x -pgo='$(PGO_FLAG)' -policies $(POLICIES)

# fuzz-sweep runs the sweep file parser's fuzzer, FUZZTIME.
.PHONY: fuzz-sweep
fuzz-sweep:
	$(GO) test ./sweep -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME)

# pictures regenerates the README's pictures and the example report with the tool itself.
.PHONY: pictures
pictures: deps
	$(GO) build -o bin/packer ./cmd/packer
	bin/packer plan --chart docs/img/w1-gantt.svg >/dev/null
	bin/packer plan -w W5 --hosts 10 --chart docs/img/w5-gantt.svg >/dev/null
	bin/packer compare --chart docs/img/w1-w6.svg >/dev/null
	tmp=$$(mktemp -d) && \
	bin/packer plan -w W3 -o $$tmp/plan.json >/dev/null && \
	bin/packer simulate --plan $$tmp/plan.json -p fifo,fair,sequential,plan,plan-no-barrier --format json > $$tmp/sim.json && \
	bin/packer fit --observations cmd/packer/testdata/fit-observations.csv -o $$tmp/profile.json >/dev/null && \
	bin/packer report --plan $$tmp/plan.json --simulation $$tmp/sim.json --profile $$tmp/profile.json -o docs/example-report.html && \
	rm -rf $$tmp

# experiments runs every paper's headline comparison (packer experiment) over 5 random seeds; bench-policies
# measures the DP, HybS and Tyrex policies beside FIFO and fair; fuzz-spending fuzzes
# packer simulate --spending.
.PHONY: experiments bench-policies fuzz-spending
experiments:
	$(GO) run ./cmd/packer experiment run
bench-policies:
	$(GO) test ./sim -run '^$$' -bench Issue6Policies -benchtime 5x -pgo='$(PGO_FLAG)'
fuzz-spending:
	$(GO) test ./cmd/packer -run '^$$' -fuzz FuzzParseSpending -fuzztime $(FUZZTIME)
