#!/bin/bash
# Runs a command (`make test` runs the suite through this) and then fails if it touched the host: /dev/null must
# still be a character device, nothing may have been created or removed in /dev, /etc or /run, and the checkout's
# tracked and untracked (not ignored) files must be as they were. Tests keep to their own temp dirs; this is what
# holds them to it, even as root. Exit status: the command's when it failed, else 1 when the host changed, else 0.
set -u
cd "$(dirname "$0")/.."

# Entries that change on a live host whatever the tests do, each for one reason. Other mounts below /dev and /run
# (devpts, /dev/shm, /run/user/UID, /run/lock on some hosts) are left out by -xdev.
excluded=(
    -path /run/user -o -path '/run/user/*'         # logind adds and removes a directory per login session
    -o -path '/run/systemd/*'                      # systemd's own runtime state: units, sessions, journal streams
    -o -path '/dev/pts/*'                          # terminals opened by anyone (when devpts is not its own mount)
    -o -path '/dev/shm/*'                          # other programs' shared memory (when not its own mount)
)

# Every entry under /dev, /etc and /run with its type, one per line, sorted.
host_listing() {
    find /dev /etc /run -xdev \( "${excluded[@]}" \) -prune -o -printf '%y %p\n' 2>/dev/null | LC_ALL=C sort
}

# The checkout's state: changed and untracked files, and a digest of every change, so that a file already
# modified before the suite is noticed when the suite changes it again.
checkout_state() {
    git rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
    git status --porcelain --untracked-files=all
    { git diff HEAD --binary; git ls-files -o --exclude-standard -z | xargs -0r sha256sum; } | sha256sum
}

before_host=$(host_listing)
before_checkout=$(checkout_state)

"$@"
status=$?

changed=0
if [ ! -c /dev/null ]; then
    echo "host-check: /dev/null is no longer a character device: $(ls -l /dev/null)" >&2
    changed=1
fi
host_diff=$(diff <(printf '%s\n' "$before_host") <(host_listing) | grep '^[<>]')
if [ -n "$host_diff" ]; then
    echo "host-check: the suite created (>) or removed (<) entries in /dev, /etc or /run:" >&2
    printf '%s\n' "$host_diff" >&2
    changed=1
fi
checkout_diff=$(diff <(printf '%s\n' "$before_checkout") <(checkout_state) | grep '^[<>]')
if [ -n "$checkout_diff" ]; then
    echo "host-check: the suite changed the checkout's files (git status before <, after >):" >&2
    printf '%s\n' "$checkout_diff" >&2
    changed=1
fi

if [ "$status" != 0 ]; then exit "$status"; fi
if [ "$changed" != 0 ]; then exit 1; fi
echo "host-check: /dev, /etc, /run and the checkout are as they were"
