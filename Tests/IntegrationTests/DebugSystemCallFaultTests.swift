import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

#if DEBUG
    /// `MOBIUSD_DEBUG_SYSCALL_FAULTS` (docs/reliability.md, "Soak"): a debug build fails every Nth call of the kind
    /// it names, so that the soak can fail fdatasync in a running daemon; a malformed value stops the start, naming
    /// the variable.
    @Suite(.serialized, .timeLimit(.minutes(2)))
    struct DebugSystemCallFaultTests {
        func environment(_ faults: String) -> [String: String] {
            ["PATH": SystemProcess.environment("PATH") ?? "/usr/bin:/bin", "MOBIUSD_DEBUG_SYSCALL_FAULTS": faults]
        }

        /// Every third fdatasync fails: those passes get `StorageFailure`, the others are acked with seqs that have
        /// no gap, and the model counts exactly the acked events. A SIGHUP still reloads (the fault's log line
        /// starts the log's thread; started before the signals were blocked, it took SIGHUP's default action and
        /// the daemon died: the soak found that).
        @Test func failedSyncsAreStorageFailuresAndSignalsStillWork() throws {
            let scratch = DaemonScratch()
            let daemon = try DaemonProcess(
                scratch: scratch,
                arguments: ["--socket", scratch.file("x.sock"), "--state-dir", scratch.file("state")],
                socketPath: scratch.file("x.sock"), environment: environment("fdatasync:EIO:3"))
            let client = try daemon.connect()
            var acked: [Int64] = []
            var failures = 0
            for _ in 1...12 {
                let reply = try client.request(#"{"type":"increment"}"#)
                if let seq = reply.seq, reply.isAck {
                    acked.append(seq)
                } else {
                    #expect(reply.errorCode == "StorageFailure", "\(reply)")
                    #expect(reply.errorMessage?.contains("fdatasync") == true, "\(reply)")
                    failures += 1
                }
            }
            #expect(failures >= 2, "the variable failed no fdatasync; stderr:\n\(daemon.standardError)")
            #expect(acked == Array(1...Int64(acked.count)), "acked seqs have no gap")
            #expect(try client.request("model").model == .number(JSONNumber(acked.count)))
            #expect(daemon.standardError.contains("MOBIUSD_DEBUG_SYSCALL_FAULTS: 1 in 3 fdatasync calls fails"))
            daemon.send(signal: 1)
            try DaemonTraffic.eventually("the SIGHUP is handled") { daemon.standardError.contains("SIGHUP") }
            #expect(daemon.isRunning, "SIGHUP ended the daemon; stderr:\n\(daemon.standardError)")
            #expect(try daemon.terminate() == .exited(0))
        }

        @Test func aMalformedValueStopsTheStartNamingIt() throws {
            let scratch = DaemonScratch()
            let daemon = try DaemonProcess(
                scratch: scratch, arguments: ["--socket", scratch.file("x.sock"), "--ephemeral"],
                socketPath: scratch.file("x.sock"), environment: environment("fdatasync:EIO"), waitForSocket: false)
            #expect(try daemon.waitForExit() == .exited(1))
            #expect(
                daemon.standardError.contains(#"MOBIUSD_DEBUG_SYSCALL_FAULTS: "fdatasync:EIO" is not CALL:ERRNO:N"#))
        }
    }
#endif
