# mobiusd build entry points. `make test` is what CI runs (.ci/run); `make run` starts the demo.
SHELL := /bin/bash
SWIFT ?= swift
# Release binaries (install, bench) carry the Swift runtime (--static-swift-stdlib): an installed daemon needs no
# toolchain libraries at run time, and it maps only the runtime code it uses (idle RSS 12.7 -> 10.6 MB, start-up
# 8.3 -> 6.0 ms; docs/architecture.md). Debug builds (run, test) link the toolchain's shared libraries.
RELEASE_FLAGS := -c release --static-swift-stdlib
# The project's own code builds without a warning: `make build`, `make test` and `make run` pass the same flags, so
# they share one build (flags that differ would recompile every module). Not in Package.swift: a package that depends
# on this one must not fail to build when a newer compiler finds something new to warn about.
BUILD_FLAGS := -Xswiftc -warnings-as-errors
APT_PACKAGES := libsystemd-dev libdbus-1-dev socat dbus-daemon dbus-bin python3-dbus python3-gi redis-server pkg-config systemd
# The mqtt example plugin and its test broker.
APT_PACKAGES += python3-paho-mqtt mosquitto
# zsh runs the zsh completions in their tests (Tests/IntegrationTests/Completion).
APT_PACKAGES += zsh
# linux/aio_abi.h: the journal's background fdatasync (Linux AIO, in the CLinux shim).
APT_PACKAGES += linux-libc-dev
# The Python SDK's pip install test: a venv, and setuptools and wheel to build it offline.
APT_PACKAGES += python3-venv python3-setuptools python3-wheel
# systemd-nspawn boots the real systemd that `make test-systemd` reloads the units under (Tests/systemd).
APT_PACKAGES += systemd-container
# The soak's plot of RSS, descriptors, ack p99 and events/s (Tests/soak, docs/reliability.md).
APT_PACKAGES += python3-matplotlib
# gdbus (gdbus monitor, gdbus call), as a user would watch and call an exposed app (Tests/IntegrationTests/DBusExpose*).
APT_PACKAGES += libglib2.0-bin
# promtool checks `metrics` in the Prometheus format, and the Python client's parser checks it in OpenMetrics
# (Tests/IntegrationTests/MetricsTests.swift).
APT_PACKAGES += prometheus python3-prometheus-client
# tmux is the terminal `mobiusctl top` is tested on (Tests/IntegrationTests/TopTests.swift).
APT_PACKAGES += tmux
BENCH_RUNS ?= 5
# `make soak`: how long the soak runs (seconds), and where its plot goes. `make test` runs a 30-second smoke.
SOAK_SECONDS ?= 600
SOAK_PLOT ?= .build/soak.png
SOAK_SMOKE_SECONDS ?= 30
# Seconds each libFuzzer target runs in `make fuzz` (docs/reliability.md, "Fuzzing").
FUZZ_SECONDS ?= 60

.PHONY: all deps build test test-suite test-systemd fuzz sanitize sanitize-quick lint format bench run clean \
  install install-files uninstall soak

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
	$(SWIFT) build $(BUILD_FLAGS)

# The suite runs inside Tests/host-check.sh, which fails it when it changed /dev, /etc, /run or the checkout.
test: build
	Tests/host-check.sh $(MAKE) --no-print-directory test-suite
	$(MAKE) lint

test-suite:
	$(SWIFT) test $(BUILD_FLAGS)
	Plugins/test.sh
	SWIFT=$(SWIFT) BUILD_FLAGS="$(BUILD_FLAGS)" Tests/newuser/run.sh
	BIN="$$($(SWIFT) build --show-bin-path)" Tests/systemd/real-systemd.sh
	/usr/bin/python3 Tests/soak/soak.py --bin "$$($(SWIFT) build --show-bin-path)" --seconds $(SOAK_SMOKE_SECONDS) \
	  --plot .build/soak-smoke.png --skip-without-namespaces
	SWIFT=$(SWIFT) Fuzz/run.sh --smoke
	$(MAKE) --no-print-directory sanitize-quick

# Every libFuzzer target for FUZZ_SECONDS, in a build of its own (.build/fuzz); prints executions, coverage and
# findings per target.
fuzz: deps
	SWIFT=$(SWIFT) FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh

# The whole suite under AddressSanitizer (with LeakSanitizer), then under ThreadSanitizer, each built in a scratch
# path of its own (.build/asan, .build/tsan), inside Tests/host-check.sh; fails on a failed test or on any sanitizer
# report, and runs both either way (docs/reliability.md, "Sanitizers"). Tests/sanitize/tsan-locks.sh first shows why
# the TSan build replaces Mutex.
sanitize: deps
	Tests/sanitize/tsan-locks.sh
	SWIFT=$(SWIFT) BUILD_FLAGS="$(BUILD_FLAGS)" Tests/host-check.sh Tests/sanitize/run.sh address thread

# The short form make test runs: mobiusd built under each sanitizer, driven by a few suites of the normal test
# bundle (Tests/sanitize/run.sh --quick).
sanitize-quick:
	Tests/sanitize/tsan-locks.sh
	SWIFT=$(SWIFT) BUILD_FLAGS="$(BUILD_FLAGS)" Tests/sanitize/run.sh --quick address thread

# systemctl reload of the units under a real systemd as PID 1, in a container over an overlay of this machine's root
# (root only; it says "skipped" where systemd-nspawn cannot run). docs/systemd.md, "Testing under a real systemd".
test-systemd: build
	BIN="$$($(SWIFT) build --show-bin-path)" Tests/host-check.sh Tests/systemd/real-systemd.sh

# The real daemon (the debug build: only it takes injected fdatasync failures) under load and faults for
# SOAK_SECONDS, then the checks; prints a table and writes SOAK_PLOT. docs/reliability.md, "Soak". SOAK_SEED=N repeats
# a run's choices.
soak: build
	Tests/host-check.sh /usr/bin/python3 Tests/soak/soak.py --bin "$$($(SWIFT) build --show-bin-path)" \
	  --seconds $(SOAK_SECONDS) --plot $(SOAK_PLOT) $(if $(SOAK_SEED),--seed $(SOAK_SEED))

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks Examples Plugins Fuzz

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks Examples Plugins Fuzz

bench: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product mobius-bench
	Benchmarks/run-library.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/mobius-bench" $(BENCH_RUNS)
	$(SWIFT) build $(RELEASE_FLAGS) --product mobius-json-bench
	Benchmarks/run-json.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/mobius-json-bench" $(BENCH_RUNS)
	SWIFT=$(SWIFT) Benchmarks/run-daemon.sh $(BENCH_RUNS)
	Benchmarks/run-fsync-handoff.sh
	SWIFT=$(SWIFT) Benchmarks/run-systemd.sh $(BENCH_RUNS)
	SWIFT=$(SWIFT) Benchmarks/run-dbus.sh $(BENCH_RUNS)
	SWIFT=$(SWIFT) Benchmarks/run-plugin-daemon.sh $(BENCH_RUNS)
	SWIFT=$(SWIFT) Benchmarks/run-plugin.sh $(BENCH_RUNS)
	$(SWIFT) build $(RELEASE_FLAGS) --product mobiusd
	$(SWIFT) build $(RELEASE_FLAGS) --product mobiusd-bench-plugin
	Benchmarks/run-history.py "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/mobiusd" --runs $(BENCH_RUNS)
	Benchmarks/run-history.py "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/mobiusd" --runs $(BENCH_RUNS) \
	  --update-plugin swift
	Benchmarks/run-history.py "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/mobiusd" --runs $(BENCH_RUNS) \
	  --update-plugin python
	SWIFT=$(SWIFT) Benchmarks/run-replay.sh $(BENCH_RUNS)

# The daemon with its embedded default app (the counter); it prints its socket and a socat line.
run: deps
	$(SWIFT) build $(BUILD_FLAGS) --product mobiusd
	$(SWIFT) build $(BUILD_FLAGS) --product mobiusctl
	"$$($(SWIFT) build --show-bin-path)/mobiusd"

clean:
	rm -rf .build

# `make install` builds release binaries and installs them with the units, man pages, docs and example plugins.
# PREFIX (default /usr/local) and DESTDIR (a staging root for packaging) as usual; units go where systemd looks for
# them under PREFIX. `install-files` installs an existing build (BUILT=its bin directory) without building.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
UNITDIR ?= $(PREFIX)/lib/systemd/system
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/mobiusd
PLUGINDIR ?= $(PREFIX)/lib/mobiusd/plugins
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
# The system bus's policy for exposed apps goes where dbus-daemon reads it: Debian's reads /usr/share/dbus-1/system.d
# (packages) and /etc/dbus-1/system.d (local), not PREFIX/share under /usr/local.
DBUSPOLICYDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/share/dbus-1/system.d,/etc/dbus-1/system.d)
BUILT ?= $(shell $(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)
# Swift example plugins built as products, installed into PLUGINDIR.
EXAMPLE_PLUGIN_PRODUCTS ?=
# Plugins an embedded app looks for beside the daemon (the counter's mobiusd-beep), installed into BINDIR.
BUNDLED_PLUGIN_PRODUCTS ?= mobiusd-beep
UNITS := mobiusd.service mobiusd.socket mobiusd@.service mobiusd@.socket mobiusd-metrics@.service mobiusd-metrics@.timer
USER_UNITS := mobiusd@.service mobiusd@.socket
DOCS := README.md $(wildcard docs/*.md)
# The example plugins (each Plugins/NAME/mobiusd-NAME, not their tests) and the Python SDK they import from their
# own directory (docs/systemd.md lists the plugin directory).
SCRIPT_PLUGINS := $(wildcard Plugins/*/mobiusd-*)
PLUGIN_LIBRARIES := Plugins/sdk/python/mobiusd_plugin.py

install:
	$(SWIFT) build $(RELEASE_FLAGS) --product mobiusd
	$(SWIFT) build $(RELEASE_FLAGS) --product mobiusctl
	$(foreach p,$(EXAMPLE_PLUGIN_PRODUCTS) $(BUNDLED_PLUGIN_PRODUCTS),$(SWIFT) build $(RELEASE_FLAGS) --product $(p) &&) true
	$(MAKE) install-files BUILT="$(BUILT)"

install-files:
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(USERUNITDIR)" "$(DESTDIR)$(MANDIR)/man1" \
	  "$(DESTDIR)$(MANDIR)/man8" "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(PLUGINDIR)" "$(DESTDIR)$(SYSUSERSDIR)"
	install -m 0755 "$(BUILT)/mobiusd" "$(BUILT)/mobiusctl" "$(DESTDIR)$(BINDIR)/"
	for u in $(UNITS); do sed 's#/usr/local/bin/#$(BINDIR)/#' "systemd/$$u" > "$(DESTDIR)$(UNITDIR)/$$u"; \
	  chmod 0644 "$(DESTDIR)$(UNITDIR)/$$u"; done
	for u in $(USER_UNITS); do sed 's#/usr/local/bin/#$(BINDIR)/#' "systemd/user/$$u" > "$(DESTDIR)$(USERUNITDIR)/$$u"; \
	  chmod 0644 "$(DESTDIR)$(USERUNITDIR)/$$u"; done
	install -m 0644 systemd/sysusers.d/mobiusd.conf "$(DESTDIR)$(SYSUSERSDIR)/"
	# The system units' user: created now when installing into this system, by the package's postinst otherwise.
	if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v systemd-sysusers >/dev/null; then \
	  systemd-sysusers "$(SYSUSERSDIR)/mobiusd.conf"; fi
	install -m 0644 man/mobiusctl.1 "$(DESTDIR)$(MANDIR)/man1/"
	install -m 0644 man/mobiusd.8 "$(DESTDIR)$(MANDIR)/man8/"
	install -m 0644 $(DOCS) "$(DESTDIR)$(DOCDIR)/"
	install -m 0755 $(SCRIPT_PLUGINS) "$(DESTDIR)$(PLUGINDIR)/"
	install -m 0644 $(PLUGIN_LIBRARIES) "$(DESTDIR)$(PLUGINDIR)/"
	for p in $(EXAMPLE_PLUGIN_PRODUCTS); do install -m 0755 "$(BUILT)/$$p" "$(DESTDIR)$(PLUGINDIR)/"; done
	for p in $(BUNDLED_PLUGIN_PRODUCTS); do install -m 0755 "$(BUILT)/$$p" "$(DESTDIR)$(BINDIR)/"; done
	install -d "$(DESTDIR)$(BASHCOMPDIR)" "$(DESTDIR)$(ZSHCOMPDIR)"
	install -m 0644 completions/mobiusctl.bash "$(DESTDIR)$(BASHCOMPDIR)/mobiusctl"
	install -m 0644 completions/mobiusd.bash "$(DESTDIR)$(BASHCOMPDIR)/mobiusd"
	install -m 0644 completions/_mobiusctl completions/_mobiusd "$(DESTDIR)$(ZSHCOMPDIR)/"
	install -d "$(DESTDIR)$(DBUSPOLICYDIR)"
	install -m 0644 systemd/org.mobiusd.app.conf "$(DESTDIR)$(DBUSPOLICYDIR)/"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/mobiusd" "$(DESTDIR)$(BINDIR)/mobiusctl"
	for p in $(BUNDLED_PLUGIN_PRODUCTS); do rm -f "$(DESTDIR)$(BINDIR)/$$p"; done
	rm -f $(foreach u,$(UNITS),"$(DESTDIR)$(UNITDIR)/$(u)") $(foreach u,$(USER_UNITS),"$(DESTDIR)$(USERUNITDIR)/$(u)")
	rm -f "$(DESTDIR)$(SYSUSERSDIR)/mobiusd.conf"
	rm -f "$(DESTDIR)$(MANDIR)/man1/mobiusctl.1" "$(DESTDIR)$(MANDIR)/man8/mobiusd.8"
	rm -rf "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(PLUGINDIR)"
	rm -f "$(DESTDIR)$(BASHCOMPDIR)/mobiusctl" "$(DESTDIR)$(BASHCOMPDIR)/mobiusd" \
	  "$(DESTDIR)$(ZSHCOMPDIR)/_mobiusctl" "$(DESTDIR)$(ZSHCOMPDIR)/_mobiusd"
	rm -f "$(DESTDIR)$(DBUSPOLICYDIR)/org.mobiusd.app.conf"
	-rmdir "$(DESTDIR)$(PREFIX)/lib/mobiusd" 2>/dev/null
