import MobiusCore
import Synchronization
import Testing

@Suite("Disposables", .serialized, .timeLimit(.scaled(minutes: 1)))
struct DisposableTests {
    @Test("AnonymousDisposable runs its closure once, however often it is disposed")
    func anonymousDisposableOnce() {
        let runs = Counter()
        let disposable = AnonymousDisposable { runs.increment() }
        #expect(runs.current == 0, "creating it does not dispose it")

        disposable.dispose()
        disposable.dispose()

        #expect(runs.current == 1)
    }

    @Test("AnonymousDisposable disposed from 8 threads at once runs once")
    func anonymousDisposableConcurrent() {
        let rounds = 200
        let runs = (0..<rounds).map { _ in Counter() }
        let disposables = runs.map { counter in AnonymousDisposable { counter.increment() } }

        let finished = runOnThreads(8) { _ in
            for disposable in disposables { disposable.dispose() }
        }

        #expect(finished)
        #expect(runs.map(\.current) == Array(repeating: 1, count: rounds))
    }

    @Test("CompositeDisposable disposes every member once, in the order given")
    func compositeDisposesAllInOrder() {
        let order = Recorder<Int>()
        let composite = CompositeDisposable(
            disposables: (0..<5).map { index in
                AnonymousDisposable { order.append(index) }
            })

        composite.dispose()
        composite.dispose()

        #expect(order.values == [0, 1, 2, 3, 4])
    }

    @Test("CompositeDisposable disposed from many threads disposes each member once")
    func compositeConcurrent() {
        let members = (0..<50).map { _ in Counter() }
        let inner = CompositeDisposable(
            disposables: members[25...].map { counter in
                AnonymousDisposable { counter.increment() }
            })
        let composite = CompositeDisposable(
            disposables: members[..<25].map { counter in AnonymousDisposable { counter.increment() } } + [inner]
        )

        let finished = runOnThreads(8) { _ in composite.dispose() }

        #expect(finished)
        #expect(members.map(\.current) == Array(repeating: 1, count: 50))
    }

    @Test("a disposed member of a composite is not run again when the composite is disposed")
    func compositeWithAlreadyDisposedMember() {
        let runs = Counter()
        let member = AnonymousDisposable { runs.increment() }
        let composite = CompositeDisposable(disposables: [member, EmptyDisposable()])

        member.dispose()
        composite.dispose()

        #expect(runs.current == 1)
    }

    @Test("Connection.dispose from many threads runs its dispose closure once and then drops input")
    func connectionDisposeConcurrent() {
        let disposals = Counter()
        let accepted = Counter()
        let connection = Connection<Int>(
            acceptClosure: { _ in accepted.increment() },
            disposeClosure: {
                disposals.increment()
            })
        connection.accept(1)

        let finished = runOnThreads(8) { _ in connection.dispose() }
        connection.accept(2)

        #expect(finished)
        #expect(disposals.current == 1)
        #expect(accepted.current == 1)
    }
}
