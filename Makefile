# mobiusd build entry points. `make test` is what CI runs (.ci/run); `make run` starts the demo.
SHELL := /bin/bash
SWIFT ?= swift
RELEASE_FLAGS := -c release
APT_PACKAGES := libsystemd-dev libdbus-1-dev socat dbus-daemon redis-server pkg-config systemd
BENCH_RUNS ?= 5

.PHONY: all deps build test lint format bench run clean

all: build

# Installs the Debian packages the project needs when they are missing (as root or with sudo),
# otherwise prints the exact command to run.
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all present ($(APT_PACKAGES))"; exit 0; fi; \
	echo "deps: missing:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo"; \
	else echo "deps: run: sudo apt-get update && sudo apt-get install -y$$missing"; exit 1; fi; \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing

build: deps
	$(SWIFT) build

test: build
	$(SWIFT) test
	$(MAKE) lint

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks Examples

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks Examples

bench: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product mobius-bench
	Benchmarks/run-library.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/mobius-bench" $(BENCH_RUNS)
	$(SWIFT) build $(RELEASE_FLAGS) --product mobius-json-bench
	Benchmarks/run-json.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/mobius-json-bench" $(BENCH_RUNS)
	SWIFT=$(SWIFT) Benchmarks/run-daemon.sh $(BENCH_RUNS)

# The daemon with its embedded default app (the counter); it prints its socket and a socat line.
run: deps
	$(SWIFT) build --product mobiusd
	$(SWIFT) build --product mobiusctl
	"$$($(SWIFT) build --show-bin-path)/mobiusd"

clean:
	rm -rf .build
