import MobiusSystem
import Synchronization

/// One fault to inject through MobiusSystem's seam (`SystemCallFaults`): which calls it matches, which of them it
/// hits, and what it does to them.
package struct Fault: Sendable, CustomStringConvertible {
    /// The kind of call, or `nil` for any wrapped call.
    package var call: SystemCall?
    /// Only calls on this descriptor, or on any when `nil`.
    package var fd: FileDescriptor?
    /// Only calls whose path ends with this, or any when `nil`.
    package var pathSuffix: String?
    /// The first matching call it hits (1: the first).
    package var occurrence: Int
    /// Whether it hits every matching call from `occurrence` on (a disk that stays full), not just that one.
    package var persists: Bool
    /// What the hit calls get.
    package var outcome: InjectedFault

    package init(
        _ call: SystemCall? = nil, fd: FileDescriptor? = nil, pathSuffix: String? = nil, occurrence: Int = 1,
        persists: Bool = false, _ outcome: InjectedFault
    ) {
        self.call = call
        self.fd = fd
        self.pathSuffix = pathSuffix
        self.occurrence = occurrence
        self.persists = persists
        self.outcome = outcome
    }

    package var description: String {
        let target = [fd?.description, pathSuffix.map { "…\($0)" }].compactMap { $0 }.joined(separator: ", ")
        return "\(outcome) at \(call?.rawValue ?? "call") #\(occurrence)\(persists ? "+" : "")"
            + (target.isEmpty ? "" : " (\(target))")
    }

    func matches(_ site: SystemCallSite) -> Bool {
        (call == nil || call == site.call) && (fd == nil || fd == site.fd)
            && (pathSuffix.map { site.path?.hasSuffix($0) ?? false } ?? true)
    }
}

/// Runs code with faults injected into the wrapped system calls that the current thread makes, and records those
/// calls: so a test can list every call an operation makes, then fail each one in turn. Calls on other threads
/// (other tests running in parallel) pass untouched.
package enum FaultInjection {
    /// The calls this thread made while `body` ran, in order, with what was injected into each.
    package struct Record: Sendable {
        package var calls: [SystemCallSite] = []
        package var injected: [(index: Int, fault: InjectedFault)] = []
    }

    /// Runs `body` with `faults` applied to this thread's wrapped calls; returns what it returned and the record.
    package static func run<Result>(
        _ faults: [Fault] = [], _ body: () throws -> Result
    ) rethrows -> (result: Result, record: Record) {
        let thread = SystemThread.currentID
        let state = Mutex<(record: Record, seen: [Int])>((Record(), Array(repeating: 0, count: faults.count)))
        let token = SystemCallFaults.install { site in
            guard SystemThread.currentID == thread else { return nil }
            return state.withLock { state in
                state.record.calls.append(site)
                var hit: InjectedFault?
                for (index, fault) in faults.enumerated() where fault.matches(site) {
                    state.seen[index] += 1
                    let seen = state.seen[index]
                    if hit == nil && (seen == fault.occurrence || (fault.persists && seen > fault.occurrence)) {
                        hit = fault.outcome
                    }
                }
                if let hit { state.record.injected.append((state.record.calls.count - 1, hit)) }
                return hit
            }
        }
        defer { SystemCallFaults.remove(token) }
        let result = try body()
        return (result, state.withLock { $0.record })
    }

    /// The wrapped calls this thread makes while `body` runs, with no fault injected.
    package static func calls(_ body: () throws -> Void) rethrows -> [SystemCallSite] {
        try run([], body).record.calls
    }
}
