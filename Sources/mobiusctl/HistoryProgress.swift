import MobiusJSON
import MobiusSystem

/// `model --at N` while the daemon replays that past model on its history thread (docs/durability.md, "The model at
/// any seq"): once the answer has been a second coming, a progress line on stderr, taken from `status` (its
/// `history`) asked on a second connection about once a second. Only made when stderr is a terminal, so scripts and
/// pipes get exactly the answer.
struct HistoryProgress {
    /// The connection the answer comes on.
    let answer: FileDescriptor
    let socketPath: String
    /// The seq whose model was asked.
    let at: UInt64
    let line: ProgressLine

    /// An answer sooner than this shows no line.
    static let quietNanoseconds: UInt64 = 1_000_000_000
    /// From one `status` answer to the next question.
    static let everyNanoseconds: UInt64 = 1_000_000_000

    private enum Token: UInt64 {
        case answer, status
    }

    /// Returns, the line taken away, once the answer's connection has something to read or has ended. Progress that
    /// cannot be had (`status` refused, its connection gone) just stops showing: the answer is what matters.
    func waitForAnswer() {
        defer { line.clear() }
        guard let epoll = try? Epoll(capacity: 4),
            (try? epoll.add(answer, events: .readable, token: Token.answer.rawValue)) != nil
        else { return }
        var status: FileDescriptor?
        defer { status?.close() }
        var replies = LineFramer()
        var asking = false
        var nextAsk: UInt64? = SystemProcess.monotonicNanoseconds() + Self.quietNanoseconds
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let giveUp = {
            if let open = status { epoll.remove(open) }
            status?.close()
            status = nil
            nextAsk = nil
        }
        while true {
            let now = SystemProcess.monotonicNanoseconds()
            if !asking, let due = nextAsk, now >= due {
                if status == nil { status = connectStatus(epoll) }
                if let status, (try? status.writeAllInterruptibly(Array("status\n".utf8), socket: true)) != nil {
                    asking = true
                } else {
                    giveUp()
                }
                continue
            }
            let timeout = asking ? -1 : nextAsk.map { Int32(min(($0 - min($0, now)) / 1_000_000 + 1, 1000)) } ?? -1
            var ready: [UInt64] = []
            guard (try? epoll.wait(timeoutMilliseconds: timeout) { token, _ in ready.append(token) }) != nil else {
                return
            }
            if ready.contains(Token.answer.rawValue) { return }
            guard ready.contains(Token.status.rawValue), let open = status else { continue }
            let count = buffer.withUnsafeMutableBytes { (try? open.readInterruptibly(into: $0)) ?? 0 }
            guard count > 0 else {
                giveUp()
                continue
            }
            replies.append(buffer[..<count])
            while case .line(let reply)? = replies.next() {
                guard let value = try? ControlClient.lineParser.parse(reply), value["ok"]?.boolValue == true,
                    let text = Self.text(value["history"], at: at)
                else {
                    giveUp()
                    break
                }
                line.show(text)
                asking = false
                nextAsk = SystemProcess.monotonicNanoseconds() + Self.everyNanoseconds
            }
        }
    }

    private func connectStatus(_ epoll: Epoll) -> FileDescriptor? {
        guard let fd = try? UnixSocket.connectInterruptibly(path: socketPath) else { return nil }
        guard (try? epoll.add(fd, events: .readable, token: Token.status.rawValue)) != nil else {
            fd.close()
            return nil
        }
        return fd
    }

    /// The line for `status`'s `history`: `replaying: 42% (42,000 of 100,000 events), 12,345 events/s` while the
    /// history thread replays the model at `at`, else how many replays it has before it; `nil` without `history` (a
    /// daemon that does not report it).
    static func text(_ history: JSONValue?, at: UInt64) -> String? {
        guard let history, history.objectValue != nil else { return nil }
        let running = history["running"]
        guard running?["request"]?.stringValue == "model", running?["seq"]?.numberValue?.uint64Value == at,
            let done = running?["done"]?.int64Value, let of = running?["of"]?.int64Value
        else {
            let pending = history["pending"]?.int64Value ?? 0
            let replays = pending == 1 ? "1 replay" : "\(ProgressLine.grouped(Int(pending))) replays"
            return "waiting for the daemon's history thread: \(replays) of past models running or waiting"
        }
        var text = "replaying: " + ProgressLine.summary(done: Int(done), total: Int(of))
        if let seconds = running?["seconds"]?.doubleValue, seconds > 0 {
            text += ", \(ProgressLine.grouped(Int(Double(done) / seconds))) events/s"
        }
        return text
    }
}
