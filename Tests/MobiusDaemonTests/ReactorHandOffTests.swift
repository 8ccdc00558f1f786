import MobiusCore
import MobiusSystem
import Synchronization
import Testing

/// `DaemonSetup.serve` hands the reactor thread the setup and the journal as one tuple in one `UncheckedSendable`,
/// destructured on that thread in a throwing closure with a `defer`. Each object in the tuple is retained and
/// released exactly as often as it would be if handed over as two values: after the join the caller's reference is
/// the only one left, and the object is freed once, when that reference goes.
@Suite(.serialized)
struct ReactorHandOffTests {
    /// Counts deinits, so a test can tell an object freed too early (over-released) from one still alive.
    private class Tracked {
        static let freed = Atomic<Int>(0)
        deinit { Self.freed.add(1, ordering: .relaxed) }
    }

    /// The journal's place in the tuple.
    private final class Journal: Tracked {
        private(set) var closed = false
        func close() { closed = true }
    }

    /// The setup's shape: a generic struct holding closures and a class.
    private struct Setup<Model> {
        let update: (Model) -> Model
        let part: Tracked
        let name: String
    }

    private struct Refused: Error {}

    @Test(arguments: [false, true])
    func aTupleHandedToTheReactorThreadIsReleasedOnce(throwing: Bool) throws {
        let freedBefore = Tracked.freed.load(ordering: .relaxed)
        var journal: Journal? = Journal()
        var part: Tracked? = Tracked()
        weak let weakJournal = journal
        weak let weakPart = part
        do {
            let setup = Setup<Int>(update: { $0 + 1 }, part: part!, name: "counter")
            try handOff(setup: setup, journal: journal!, throwing: throwing)
        }
        // Nothing was freed while the caller still holds both: an over-release would have freed one already.
        try #require(Tracked.freed.load(ordering: .relaxed) == freedBefore, "an object was freed while still held")
        // Nothing kept a reference past the join: the caller's is the only one.
        #expect(isKnownUniquelyReferenced(&journal), "the journal is still referenced after the join")
        #expect(isKnownUniquelyReferenced(&part), "the setup's class is still referenced after the join")
        #expect(journal?.closed == !throwing)
        journal = nil
        part = nil
        #expect(weakJournal == nil && weakPart == nil)
        #expect(Tracked.freed.load(ordering: .relaxed) == freedBefore + 2, "each object is freed exactly once")
    }

    /// `serve`'s hand-off: one tuple in one carrier, destructured on a joinable thread inside `Result`.
    private func handOff(setup: Setup<Int>, journal: Journal, throwing: Bool) throws {
        let outcome = Locked<Result<Int, any Error>>(.success(0))
        let handed = UncheckedSendable(value: (setup: setup, journal: journal))
        let thread = try SystemThread.spawn(name: "handoff-test", stackSize: 1 << 20, joinable: true) {
            let result = Result { () throws in
                let (setup, journal) = handed.value
                if throwing { throw Refused() }
                defer { journal.close() }
                return setup.update(setup.name.count)
            }
            outcome.withLock { $0 = result }
        }
        thread.join()
        let result = outcome.withLock { $0 }
        #expect((try? result.get()) == (throwing ? nil : 8))
    }
}
