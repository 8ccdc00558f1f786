import Testing

/// The advice of docs/mobiusctl.md ("Exit status") that is prose rather than a block, run as written: a script that
/// stops `watch` with `timeout -s INT --preserve-status` sees 0 (and 124 without `--preserve-status`), and a reader
/// that goes away ends `mobiusctl watch` through SIGPIPE at its next line, and a one-shot command dies of Ctrl-C (130).
///
/// The timeout is made to expire when the test says so, not after a delay: GNU timeout keeps its deadline with
/// SIGALRM, so `kill -ALRM` on it is its timer running out, sent once watch has printed its first line.
@Suite(
    .serialized, .timeLimit(.minutes(2)),
    .enabled(if: SystemTools.canUnshareMounts, "needs unshare --mount (root) for a private /tmp"))
struct MobiusctlAdviceTests {
    static let script = #"""
        set -u
        mobiusd --ephemeral --socket /tmp/c.sock > /tmp/daemon.log 2>&1 &
        for ((i = 0; i < 3000; i++)); do
            mobiusctl --socket /tmp/c.sock ping > /dev/null 2>&1 && break
            sleep 0.01
        done
        export MOBIUSD_SOCKET=/tmp/c.sock
        first_line() {
            for ((i = 0; i < 3000; i++)); do [ -s "$1" ] && return 0; sleep 0.01; done
            echo "no line in $1" >&2
            return 1
        }
        timeout -s INT --preserve-status 600 mobiusctl watch > /tmp/w1 &
        t=$!
        first_line /tmp/w1 && kill -ALRM $t
        wait $t
        echo "preserve-status=$?"
        timeout -s INT 600 mobiusctl watch > /tmp/w2 &
        t=$!
        first_line /tmp/w2 && kill -ALRM $t
        wait $t
        echo "without=$?"
        (
            set -o pipefail
            mobiusctl watch | head -1 > /tmp/w3
        ) &
        p=$!
        first_line /tmp/w3 && mobiusctl send '{"type":"increment"}' > /dev/null
        wait $p
        echo "pipe=$?"
        # A one-shot command waiting on a daemon that never answers (a socket nobody accepts on) dies of Ctrl-C.
        # Job control on, so the background command does not start with SIGINT ignored as bash's jobs otherwise do.
        python3 -c 'import socket, time; s = socket.socket(socket.AF_UNIX); s.bind("/tmp/mute.sock"); s.listen()
        print("listening", flush=True); time.sleep(600)' > /tmp/mute.out &
        first_line /tmp/mute.out
        set -m
        mobiusctl --socket /tmp/mute.sock status &
        c=$!
        set +m
        kill -INT $c
        wait $c
        echo "one-shot=$?"
        """#

    @Test(
        "timeout --preserve-status gives 0, plain timeout 124, watch | head -1 ends by SIGPIPE, status by SIGINT")
    func adviceHolds() throws {
        let run = try DocSnippetTests.run(Self.script)
        #expect(run.exit == .exited(0), "\(run.stderr)")
        #expect(
            run.stdoutLines == ["preserve-status=0", "without=124", "pipe=141", "one-shot=130"],
            "\(run.stdout)\(run.stderr)")
    }
}
