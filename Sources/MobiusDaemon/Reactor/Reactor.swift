import MobiusSystem

/// The daemon's one event loop: an epoll set that every part with a descriptor or a deadline registers with.
///
/// Handlers are registered by descriptor; timers are one-shot with cancellation; other threads reach the reactor
/// through `waker`. Each round waits in `epoll_wait` (no timeout unless a timer is due, so an idle daemon sleeps),
/// calls the ready handlers and due timers, then runs the round-end hooks: the loop pass runs there, so requests
/// read in one round are applied and answered in that same round, with no hand-off to another thread.
///
/// Everything here runs on the reactor thread, except `waker.post` and `stop()`'s posting form.
final class Reactor {
    /// A registered descriptor.
    struct Registration: Hashable {
        let token: UInt64
        let fd: FileDescriptor
    }

    private let epoll: Epoll
    private var handlers = SlotTable<any ReactorHandler>()
    private var timers = ReactorTimers()
    private var roundEndHooks: [() -> Void] = []
    /// What the round after this one does.
    private var next = NextRound.wait
    let waker: ReactorWaker
    private var wakerRegistration: Registration?

    init() throws(SystemError) {
        epoll = try Epoll()
        waker = try ReactorWaker()
        wakerRegistration = try register(waker.eventFD.fd, for: .readable, handler: WakerHandler(waker: waker))
    }

    /// Registers `fd` with `handler` for `events`. The handler is held until `unregister`.
    func register(
        _ fd: FileDescriptor, for events: Epoll.Events, handler: any ReactorHandler
    ) throws(SystemError) -> Registration {
        var table = takeHandlers()
        var token: UInt64 = 0
        _ = table.insert { key in
            token = key
            return handler
        }
        swap(&table, &handlers)
        do {
            try epoll.add(fd, events: events, token: token)
        } catch {
            unregisterHandler(token)
            throw error
        }
        return Registration(token: token, fd: fd)
    }

    /// Changes what a registration waits for.
    func update(_ registration: Registration, to events: Epoll.Events) throws(SystemError) {
        try epoll.modify(registration.fd, events: events, token: registration.token)
    }

    /// Drops a registration; its handler gets no more calls, even for events already returned in this round.
    func unregister(_ registration: Registration) {
        guard unregisterHandler(registration.token) != nil else { return }
        epoll.remove(registration.fd)
    }

    // The handlers and timers are changed only while moved out of their stored properties, so that no access to a
    // property spans a call the optimizer cannot see into (a release may run any deinit): their accesses are then
    // proven exclusive at compile time instead of checked on every round (docs/architecture.md, "Exclusivity").

    private func takeHandlers() -> SlotTable<any ReactorHandler> {
        var table = SlotTable<any ReactorHandler>()
        swap(&table, &handlers)
        return table
    }

    @discardableResult
    private func unregisterHandler(_ token: UInt64) -> (any ReactorHandler)? {
        var table = takeHandlers()
        let removed = table.remove(token)
        swap(&table, &handlers)
        return removed
    }

    private func takeTimers() -> ReactorTimers {
        var moved = ReactorTimers()
        swap(&moved, &timers)
        return moved
    }

    private func popDueTimer(now: UInt64) -> (() -> Void)? {
        var moved = takeTimers()
        let action = moved.popDue(now: now)
        swap(&moved, &timers)
        return action
    }

    /// Runs `action` once, `nanoseconds` from now.
    @discardableResult
    func after(nanoseconds: UInt64, _ action: @escaping () -> Void) -> ReactorTimers.ID {
        let now = SystemProcess.monotonicNanoseconds()
        let (deadline, overflow) = now.addingReportingOverflow(nanoseconds)
        var moved = takeTimers()
        let id = moved.schedule(at: overflow ? .max : deadline, action)
        swap(&moved, &timers)
        return id
    }

    /// Cancels a timer that has not fired yet.
    func cancel(_ timer: ReactorTimers.ID) {
        var moved = takeTimers()
        let cancelled = moved.cancel(timer)
        withExtendedLifetime(cancelled) { swap(&moved, &timers) }
    }

    /// Adds a hook run at the end of every round, in the order added.
    func atEndOfEachRound(_ hook: @escaping () -> Void) {
        var hooks: [() -> Void] = []
        swap(&hooks, &roundEndHooks)
        hooks.append(hook)
        swap(&hooks, &roundEndHooks)
    }

    /// Asks for another round without sleeping (a handler stopped early to be fair to others).
    func requestAnotherRound() {
        if case .wait = next { next = .runAtOnce }
    }

    /// Runs rounds until `stop()`.
    func run() throws(SystemError) {
        // A `stop()` before `run()` ended an earlier run, not this one.
        if case .stop = next { next = .wait }
        while true {
            let timeout: Int32
            switch next {
            case .stop: return
            case .runAtOnce: timeout = 0
            case .wait: timeout = timeoutForTimers()
            }
            next = .wait
            try epoll.wait(timeoutMilliseconds: timeout) { token, events in
                handlers[token]?.reactorReady(events)
            }
            if !timers.isEmpty {
                let now = SystemProcess.monotonicNanoseconds()
                while let action = popDueTimer(now: now) { action() }
            }
            for hook in roundEndHooks { hook() }
        }
    }

    /// Ends `run()` after the current round. Reactor thread only; other threads post it through `waker`.
    func stop() {
        next = .stop
    }

    /// How long the next wait may sleep: until the next timer is due, or for ever.
    private func timeoutForTimers() -> Int32 {
        guard let deadline = timers.nextDeadline else { return -1 }
        let now = SystemProcess.monotonicNanoseconds()
        guard deadline > now else { return 0 }
        // Rounded up: waking a little late is fine, waking early would spin until the deadline.
        let milliseconds = (deadline - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, UInt64(Int32.max)))
    }

    /// What the round after the current one does.
    private enum NextRound {
        /// Waits for descriptors and timers.
        case wait
        /// A handler or hook has more to do right away: the wait does not sleep.
        case runAtOnce
        /// `stop()` was called: `run()` returns.
        case stop
    }
}
