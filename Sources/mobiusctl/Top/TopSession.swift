import MobiusSystem

/// `mobiusctl top`: asks the daemon for `metrics` once a second on one connection and shows the figures, as a
/// screen on a terminal (alternate screen, keys read as pressed, `q` quits) or as one line per refresh otherwise.
///
/// One thread waits in epoll on the socket, the keys (stdin, when it is a terminal) and a signalfd (SIGINT, SIGTERM,
/// SIGHUP, SIGWINCH), so that every way out goes through `finish`, which gives the terminal back as it was.
struct TopSession {
    let fd: FileDescriptor
    let socket: SocketChoice
    let console: Console

    /// How long the daemon has to answer `metrics` before top gives up.
    static let answerNanoseconds: UInt64 = 5_000_000_000
    static let refreshNanoseconds: UInt64 = 1_000_000_000

    private enum Token: UInt64 {
        case daemon, keys, signals
    }

    /// Runs until `q`, a signal or the daemon's end; returns the exit status (see ``ExitStatus``).
    func run() -> Int32 {
        let onTerminal = FileDescriptor.standardOutput.isTerminal
        let keys = onTerminal && FileDescriptor.standardInput.isTerminal
        let signals: SignalFD
        let epoll: Epoll
        do {
            signals = try SignalFD([.interrupt, .terminate, .hangUp, .windowChange])
            epoll = try Epoll(capacity: 8)
            try epoll.add(fd, events: .readable, token: Token.daemon.rawValue)
            try epoll.add(signals.fd, events: .readable, token: Token.signals.rawValue)
            if keys { try epoll.add(.standardInput, events: .readable, token: Token.keys.rawValue) }
        } catch {
            console.error("top: \(error)")
            return ExitStatus.unreachable
        }
        var screen = onTerminal ? TopTerminal(keys: keys) : nil
        let status = loop(epoll: epoll, signals: signals, screen: &screen)
        screen?.leave()
        return status
    }

    private func loop(epoll: Epoll, signals: SignalFD, screen: inout TopTerminal?) -> Int32 {
        var replies = LineFramer()
        var reply: [ArraySlice<UInt8>] = []
        var previous: (scrape: MetricsScrape, at: UInt64)?
        var shown: TopFigures?
        var asked: UInt64? = nil
        var nextAsk = SystemProcess.monotonicNanoseconds()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let now = SystemProcess.monotonicNanoseconds()
            if asked == nil && now >= nextAsk {
                do throws(SystemError) {
                    try fd.writeAllInterruptibly(Array("metrics\n".utf8), socket: true)
                } catch {
                    return gone(screen: &screen, error.isPeerGone ? "it closed the connection" : "\(error)")
                }
                asked = now
                continue
            }
            if let asked, now >= asked + Self.answerNanoseconds {
                return gone(screen: &screen, "it did not answer metrics within 5 s")
            }
            let due = asked.map { $0 + Self.answerNanoseconds } ?? nextAsk
            let timeout = Int32(min((due - min(due, now)) / 1_000_000 + 1, 1000))
            var ready: [(UInt64, Epoll.Events)] = []
            do throws(SystemError) {
                try epoll.wait(timeoutMilliseconds: timeout) { ready.append(($0, $1)) }
            } catch {
                return gone(screen: &screen, "\(error)")
            }
            for (token, _) in ready {
                switch Token(rawValue: token) {
                case .signals:
                    for signal in signals.take() {
                        if signal == .windowChange {
                            if let shown { screen?.draw(shown, socket: socket.path) }
                        } else {
                            return ExitStatus.success
                        }
                    }
                case .keys:
                    let count = buffer.withUnsafeMutableBytes {
                        (try? FileDescriptor.standardInput.readInterruptibly(into: $0)) ?? 0
                    }
                    if count == 0 {
                        epoll.remove(.standardInput)
                    } else if buffer.prefix(count).contains(where: {
                        $0 == UInt8(ascii: "q") || $0 == UInt8(ascii: "Q")
                    }) {
                        return ExitStatus.success
                    }
                case .daemon:
                    let read = buffer.withUnsafeMutableBytes { raw in
                        Result { () throws(SystemError) in try fd.readInterruptibly(into: raw) }
                    }
                    let received: Int
                    do throws(SystemError) {
                        received = try read.get()
                    } catch {
                        return gone(screen: &screen, error.isPeerGone ? "it closed the connection" : "\(error)")
                    }
                    if received == 0 { return gone(screen: &screen, "it closed the connection") }
                    replies.append(buffer[..<received])
                    while case .line(let line)? = replies.next() {
                        if reply.isEmpty, line.first == UInt8(ascii: "{") {
                            return refused(line, screen: &screen)
                        }
                        reply.append(line)
                        guard line.elementsEqual("# EOF".utf8) else { continue }
                        let scrape = MetricsScrape(lines: reply)
                        reply.removeAll()
                        let at = SystemProcess.monotonicNanoseconds()
                        let seconds = previous.map { Double(at - $0.at) / 1e9 } ?? 0
                        let figures = TopFigures(scrape, previous: previous?.scrape, seconds: seconds)
                        previous = (scrape, at)
                        shown = figures
                        if screen != nil {
                            screen?.draw(figures, socket: socket.path)
                        } else {
                            console.out(TopScreen.line(figures))
                        }
                        nextAsk = (asked ?? at) + Self.refreshNanoseconds
                        asked = nil
                    }
                case nil:
                    continue
                }
            }
        }
    }

    /// The daemon went away: the screen is left, then one line says so.
    private func gone(screen: inout TopTerminal?, _ why: String) -> Int32 {
        screen?.leave()
        screen = nil
        console.error("top: mobiusd at \(socket.path) went away: \(why)")
        return ExitStatus.unreachable
    }

    /// The daemon answered `metrics` with an error (one too old to know it, or access refused).
    private func refused(_ line: ArraySlice<UInt8>, screen: inout TopTerminal?) -> Int32 {
        screen?.leave()
        screen = nil
        if let value = try? ControlClient.lineParser.parse(line) {
            console.error(HumanFormat.error(value))
        } else {
            console.error("\(socket.path): unexpected line from mobiusd: \(String(decoding: line, as: UTF8.self))")
        }
        return ExitStatus.errorReply
    }
}
