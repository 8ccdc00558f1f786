import MobiusSystem
import MobiusTestSupport
import Testing

/// Traffic patterns and waiting helpers shared by the daemon integration tests.
enum DaemonTraffic {
    static let incrementLine = Array(#"{"type":"increment"}"#.utf8) + [0x0A]
    /// `socket.stallTimeout` (the daemon's default, 30 s) times `TestTime.scale`, for tests whose client reads nothing
    /// while the daemon pushes back or while it floods: a sanitized daemon's slower pace must not get it closed.
    static let stallTimeout = 30 * TestTime.scale

    /// `count` increment lines as one byte buffer.
    static func increments(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * incrementLine.count)
        for _ in 0..<count { bytes.append(contentsOf: incrementLine) }
        return bytes
    }

    /// Sends `count` increments in batches of `batch`, reading each batch's acks before the next (so the sender
    /// never builds up more than one batch of replies). Throws on any reply that is not an ack. Returns the
    /// last seq and the slowest batch round trip.
    @discardableResult
    static func sendIncrements(
        _ count: Int, on client: DaemonLineClient, batch: Int, replyTimeout: Duration = .seconds(10)
    ) throws -> (lastSeq: Int64, slowestBatch: Duration) {
        var sent = 0
        var lastSeq: Int64 = 0
        var slowest = Duration.zero
        let chunk = increments(batch)
        while sent < count {
            let size = min(batch, count - sent)
            let started = ContinuousClock.now
            try client.sendRaw(size == batch ? chunk : Array(chunk[0..<(size * incrementLine.count)]))
            for _ in 0..<size {
                let reply = try client.readReply(timeout: replyTimeout)
                guard reply.isAck, let seq = reply.seq, seq > lastSeq else {
                    throw DaemonTestError("expected an ack after seq \(lastSeq), got \(reply)")
                }
                lastSeq = seq
            }
            slowest = max(slowest, ContinuousClock.now - started)
            sent += size
        }
        return (lastSeq, slowest)
    }

    /// Polls `condition` until it holds; throws with `what` after `timeout` (times `TestTime.scale`). For state that
    /// settles asynchronously (a close the daemon has not processed yet), never as a fixed sleep.
    static func eventually(
        _ what: String, timeout: Duration = .seconds(10), _ condition: () throws -> Bool
    ) throws {
        let deadline = ContinuousClock.now + TestTime.scaled(timeout)
        while true {
            if try condition() { return }
            if ContinuousClock.now >= deadline {
                throw DaemonTestError("timed out after \(TestTime.scaled(timeout)): \(what)")
            }
            try? SystemClock.sleep(nanoseconds: 5_000_000)
        }
    }

    /// Raises this process's open-file soft limit to at least `needed` (up to the hard limit). Spawned daemons
    /// inherit it.
    static func raiseOpenFileLimit(to needed: Int) throws {
        let limit: (soft: UInt64, hard: UInt64)
        do {
            limit = try ResourceLimits.openFiles()
        } catch {
            throw DaemonTestError("\(error)")
        }
        guard limit.soft < UInt64(needed) else { return }
        guard limit.hard >= UInt64(needed) else {
            throw DaemonTestError("RLIMIT_NOFILE hard limit \(limit.hard) is below the \(needed) this test needs")
        }
        do {
            _ = try ResourceLimits.raiseOpenFilesToHardLimit()
        } catch {
            throw DaemonTestError("\(error)")
        }
    }
}
