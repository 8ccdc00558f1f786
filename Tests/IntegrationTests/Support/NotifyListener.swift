import MobiusSystem
import MobiusTestSupport

/// Stands in for systemd's notify socket: a datagram socket the test owns, passed to the daemon as `NOTIFY_SOCKET`.
/// Each datagram is one sd_notify message (newline-separated `KEY=value`); descriptors sent along are closed.
final class NotifyListener {
    /// One message with the monotonic time the test received it.
    struct Message {
        let fields: [String: String]
        let text: String
        let receivedAt: UInt64

        subscript(key: String) -> String? { fields[key] }
    }

    let socket: DatagramSocket
    /// Every message received so far, in order.
    private(set) var received: [Message] = []

    init(scratch: DaemonScratch, name: String = "notify.sock") throws {
        socket = try DatagramSocket(binding: scratch.file(name))
    }

    deinit { socket.close() }

    /// The path to put in `NOTIFY_SOCKET`.
    var path: String { socket.path }

    /// Receives messages until one satisfies `wanted` (returned), or throws after `timeout` (times `TestTime.scale`).
    @discardableResult
    func next(
        timeout: Duration = .seconds(15), _ description: String, where wanted: (Message) -> Bool
    ) throws -> Message {
        let deadline = ContinuousClock.now + TestTime.scaled(timeout)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw DaemonTestError(
                    "no sd_notify message with \(description) within \(TestTime.scaled(timeout)); got \(texts)")
            }
            let nanoseconds =
                UInt64(left.components.seconds) * 1_000_000_000 + UInt64(left.components.attoseconds / 1_000_000_000)
            if let message = try receive(timeoutNanoseconds: nanoseconds), wanted(message) { return message }
        }
    }

    /// Waits for a message that has `key` (with `value`, when given).
    @discardableResult
    func next(_ key: String, _ value: String? = nil, timeout: Duration = .seconds(15)) throws -> Message {
        try next(timeout: timeout, value.map { "\(key)=\($0)" } ?? key) { message in
            guard let found = message[key] else { return false }
            return value == nil || found == value
        }
    }

    /// Takes what is queued now without waiting; returns the messages taken.
    @discardableResult
    func drain() throws -> [Message] {
        var taken: [Message] = []
        while let message = try receive(timeoutNanoseconds: 0) { taken.append(message) }
        return taken
    }

    /// All received texts, for failure messages.
    var texts: [String] { received.map(\.text) }

    private func receive(timeoutNanoseconds: UInt64) throws -> Message? {
        guard let bytes = try socket.receive(timeoutNanoseconds: timeoutNanoseconds) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        let message = Message(fields: fields, text: text, receivedAt: SystemProcess.monotonicNanoseconds())
        received.append(message)
        return message
    }
}
