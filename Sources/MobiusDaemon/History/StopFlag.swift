import Synchronization

/// A flag one thread raises for good and others check between steps of long work (a replay checks it per event).
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() {
        raised.store(true, ordering: .relaxed)
    }

    var isRaised: Bool { raised.load(ordering: .relaxed) }
}
