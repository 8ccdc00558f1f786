import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// The reactor's timer heap on its own: deadline order, lazy cancellation, only what is due.
@Suite("Reactor timers")
struct ReactorTimersTests {
    /// Schedules one timer per deadline that records its deadline when run.
    final class Fired {
        var deadlines: [UInt64] = []
    }

    @Test("timers come due in deadline order, whatever order they were scheduled in, and only when due")
    func deadlineOrder() {
        var timers = ReactorTimers()
        let fired = Fired()
        for deadline: UInt64 in [30, 10, 20, 40] {
            _ = timers.schedule(at: deadline) { fired.deadlines.append(deadline) }
        }
        #expect(timers.nextDeadline == 10)
        #expect(timers.popDue(now: 9) == nil)
        while let action = timers.popDue(now: 20) { action() }
        #expect(fired.deadlines == [10, 20])
        #expect(timers.nextDeadline == 30)
        while let action = timers.popDue(now: .max) { action() }
        #expect(fired.deadlines == [10, 20, 30, 40])
        #expect(timers.isEmpty)
        #expect(timers.nextDeadline == nil)
    }

    @Test("many timers in shuffled order come out sorted")
    func manyTimers() {
        var timers = ReactorTimers()
        let fired = Fired()
        var deadlines = (1...300).map { UInt64($0) * 7 }
        var generator = SplitMix64(seed: 42)
        deadlines.shuffle(using: &generator)
        for deadline in deadlines { _ = timers.schedule(at: deadline) { fired.deadlines.append(deadline) } }
        while let action = timers.popDue(now: 700) { action() }
        #expect(fired.deadlines == (1...100).map { UInt64($0) * 7 })
        while let action = timers.popDue(now: .max) { action() }
        #expect(fired.deadlines == deadlines.sorted())
    }

    @Test("a cancelled timer never comes due; cancelling the earliest moves the next deadline to a live one")
    func cancellation() {
        var timers = ReactorTimers()
        let fired = Fired()
        let first = timers.schedule(at: 10) { fired.deadlines.append(10) }
        let middle = timers.schedule(at: 20) { fired.deadlines.append(20) }
        _ = timers.schedule(at: 30) { fired.deadlines.append(30) }
        timers.cancel(middle)
        #expect(timers.nextDeadline == 10)
        timers.cancel(first)
        #expect(timers.nextDeadline == 30, "the cancelled 10 and 20 are skipped")
        while let action = timers.popDue(now: .max) { action() }
        #expect(fired.deadlines == [30])
        timers.cancel(first)
        #expect(timers.isEmpty, "cancelling twice, or after firing, does nothing")
    }

    @Test("cancelling every timer leaves nothing to wait for")
    func cancelAll() {
        var timers = ReactorTimers()
        let ids = (1...5).map { index in timers.schedule(at: UInt64(index)) {} }
        for id in ids.reversed() { timers.cancel(id) }
        #expect(timers.isEmpty)
        #expect(timers.nextDeadline == nil)
        #expect(timers.popDue(now: .max) == nil)
    }
}

/// The reactor on a thread of its own: timers, the waker, descriptors and stopping.
@Suite("Reactor", .serialized, .timeLimit(.scaled(minutes: 1)))
struct ReactorTests {
    /// What the reactor thread recorded; read by the test after the thread is joined.
    final class Record {
        var events: [String] = []
    }

    @Test("timers fire in deadline order on the reactor thread; cancelled ones never fire")
    func timers() throws {
        let started = SystemProcess.monotonicNanoseconds()
        let reactor = try Reactor()
        let record = Record()
        reactor.after(nanoseconds: 60_000_000) {
            record.events.append("60")
            reactor.stop()
        }
        let cancelledLater = reactor.after(nanoseconds: 40_000_000) { record.events.append("cancelled later") }
        reactor.after(nanoseconds: 20_000_000) { record.events.append("20") }
        let cancelledAtOnce = reactor.after(nanoseconds: 10_000_000) { record.events.append("cancelled at once") }
        reactor.after(nanoseconds: 30_000_000) { record.events.append("30") }
        reactor.after(nanoseconds: 0) {
            record.events.append("0")
            reactor.cancel(cancelledLater)
        }
        reactor.cancel(cancelledAtOnce)
        try runReactor(reactor)
        #expect(record.events == ["0", "20", "30", "60"])
        #expect(SystemProcess.monotonicNanoseconds() - started >= 60_000_000, "the last timer did not fire early")
    }

    @Test("a timer cancelled by another timer of the same round does not fire")
    func cancelledWithinRound() throws {
        let reactor = try Reactor()
        let record = Record()
        var second: ReactorTimers.ID?
        // Both are due before the reactor first looks, so they come due in the same round.
        reactor.after(nanoseconds: 0) {
            record.events.append("first")
            if let second { reactor.cancel(second) }
        }
        second = reactor.after(nanoseconds: 0) { record.events.append("second, cancelled by the first") }
        reactor.atEndOfEachRound { [unowned reactor] in reactor.stop() }
        try runReactor(reactor)
        #expect(record.events == ["first"])
    }

    @Test("work posted through the waker from other threads runs on the reactor thread, in posting order")
    func wakerRunsOnReactorThread() throws {
        let reactor = try Reactor()
        let handed = Handed(value: reactor)
        let ran = Checkpoint<[(index: Int, thread: UInt)]>([])
        let posterThread = Checkpoint<UInt>(0)
        let poster = try spawnThread("test-poster") {
            posterThread.update { $0 = SystemThread.currentID }
            for index in 0..<100 {
                handed.value.waker.post { ran.update { $0.append((index, SystemThread.currentID)) } }
            }
            handed.value.waker.post { handed.value.stop() }
        }
        let reactorThread = try runReactor(reactor)
        poster.join()
        let runs = ran.current
        #expect(runs.map(\.index) == Array(0..<100))
        #expect(runs.allSatisfy { $0.thread == reactorThread })
        #expect(reactorThread != posterThread.current && reactorThread != 0)
    }

    /// Reads what arrives on a descriptor and stops the reactor at a newline.
    final class LineReader: ReactorHandler {
        let fd: FileDescriptor
        let stop: () -> Void
        var received: [UInt8] = []
        var calls = 0
        var emptyCalls = 0

        init(fd: FileDescriptor, stop: @escaping () -> Void) {
            self.fd = fd
            self.stop = stop
        }

        func reactorReady(_ events: Epoll.Events) {
            calls += 1
            var buffer = [UInt8](repeating: 0, count: 4096)
            guard case .transferred(let count)? = try? buffer.withUnsafeMutableBytes({ try fd.read(into: $0) })
            else {
                emptyCalls += 1
                return
            }
            received += buffer[..<count]
            if received.last == UInt8(ascii: "\n") { stop() }
        }
    }

    @Test("a registered descriptor's handler is called when the other end writes")
    func descriptorHandler() throws {
        let pair = try SocketPair()
        defer { pair.close() }
        try pair.first.setNonBlocking()
        let reactor = try Reactor()
        let reader = LineReader(fd: pair.first) { [unowned reactor] in reactor.stop() }
        _ = try reactor.register(pair.first, for: .readable, handler: reader)
        let writer = try spawnThread("test-writer") {
            try? pair.second.writeAll(Array("hello ".utf8))
            try? pair.second.writeAll(Array("reactor\n".utf8))
        }
        try runReactor(reactor)
        writer.join()
        #expect(String(decoding: reader.received, as: UTF8.self) == "hello reactor\n")
        #expect(reader.emptyCalls == 0, "called only when there was something to read")
    }

    /// Unregisters another registration on its first call and records that it ran.
    final class Unregistering: ReactorHandler {
        let name: String
        let record: Record
        let reactor: Reactor
        var other: Reactor.Registration?

        init(_ name: String, record: Record, reactor: Reactor) {
            self.name = name
            self.record = record
            self.reactor = reactor
        }

        func reactorReady(_ events: Epoll.Events) {
            record.events.append(name)
            if let other { reactor.unregister(other) }
            other = nil
        }
    }

    @Test("an unregistered handler gets no more calls, even for readiness returned in the same round")
    func unregisterWithinRound() throws {
        let left = try SocketPair()
        let right = try SocketPair()
        defer {
            left.close()
            right.close()
        }
        let reactor = try Reactor()
        let record = Record()
        let a = Unregistering("a", record: record, reactor: reactor)
        let b = Unregistering("b", record: record, reactor: reactor)
        // Both readable before the first wait, so one epoll_wait returns both.
        try left.second.writeAll([1])
        try right.second.writeAll([1])
        let registrationA = try reactor.register(left.first, for: .readable, handler: a)
        let registrationB = try reactor.register(right.first, for: .readable, handler: b)
        a.other = registrationB
        b.other = registrationA
        reactor.atEndOfEachRound { [unowned reactor] in reactor.stop() }
        try runReactor(reactor)
        #expect(record.events == ["a"] || record.events == ["b"], "ran: \(record.events)")
        a.other = nil
        b.other = nil
    }

    @Test("round-end hooks run after every round; requestAnotherRound keeps the reactor from sleeping; stop ends run")
    func roundsAndStop() throws {
        let reactor = try Reactor()
        let record = Record()
        var rounds = 0
        reactor.atEndOfEachRound { [unowned reactor] in
            record.events.append("round")
            rounds += 1
            if rounds < 5 {
                // Nothing is ready and no timer waits: without this the next round would sleep forever.
                reactor.requestAnotherRound()
            } else {
                reactor.stop()
            }
        }
        reactor.atEndOfEachRound { record.events.append("second hook") }
        reactor.after(nanoseconds: 0) {}  // ends the first round at once
        try runReactor(reactor)
        #expect(record.events.filter { $0 == "round" }.count == 5)
        #expect(record.events.prefix(2) == ["round", "second hook"], "hooks run in the order added")
        #expect(record.events.last == "second hook", "stop ends run after the round it was called in")
    }

    @Test("a reactor waiting on a timer far away still wakes for posted work and stops")
    func farTimerDoesNotBlockWaker() throws {
        let reactor = try Reactor()
        let record = Record()
        reactor.after(nanoseconds: .max) { record.events.append("never") }
        reactor.after(nanoseconds: 3_600_000_000_000) { record.events.append("in an hour") }
        let handed = Handed(value: reactor)
        let poster = try spawnThread("test-poster") { handed.value.waker.post { handed.value.stop() } }
        try runReactor(reactor)
        poster.join()
        #expect(record.events.isEmpty)
    }
}

/// A small seeded generator, so shuffles repeat from run to run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
