import MobiusJSON
import Testing

/// `mobiusctl model --at N` and `mobiusctl log --models` against a real mobiusd with a journal.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct MobiusctlHistoryTests {
    private func json(_ line: String) throws -> JSONValue {
        try JSONValue(parsing: line)
    }

    /// A daemon with a journal, `count` increments applied.
    private func daemon(increments count: Int) throws -> CtlSandbox {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        for _ in 0..<count { _ = try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#) }
        return sandbox
    }

    @Test func modelAtPrintsThePastModelOrSaysWhyNot() throws {
        let sandbox = try daemon(increments: 4)
        let human = try sandbox.ctlAtSocket("--human", "model", "--at", "2")
        #expect(human.exit == .exited(0), "\(human)")
        #expect(human.stdout == "seq 2\n2\n")
        let lines = try sandbox.ctlAtSocket("model", "--at=3", "--path", "")
        #expect(try json(lines.lines[0]) == ["ok": true, "seq": 3, "model": 3], "\(lines)")
        let future = try sandbox.ctlAtSocket("--human", "model", "--at", "9")
        #expect(future.exit == .exited(1), "\(future)")
        #expect(
            future.stderr == "mobiusctl: seq 9 is in the future: the last applied seq is 4 (InvalidArgument)\n",
            "\(future)")
        for bad in ["x", "-1", "1.5", "9223372036854775808"] {
            let usage = try sandbox.ctlAtSocket("model", "--at", bad)
            #expect(usage.exit == .exited(2), "\(bad): \(usage)")
            #expect(usage.stderr.hasPrefix("mobiusctl: --at needs a whole number ≥ 0, not \"\(bad)\""), "\(usage)")
            #expect(usage.stderr.contains("model [--path PTR] [--at N]"), "the model usage line: \(usage)")
        }
        let watch = try sandbox.ctlAtSocket("watch", "--at", "1")
        #expect(watch.exit == .exited(2) && watch.stderr.contains("watch does not take --at"), "\(watch)")
    }

    @Test func logWithModelsShowsEachEventsModel() throws {
        let sandbox = try daemon(increments: 3)
        let run = try sandbox.ctlAtSocket("log", "--since", "1", "--models")
        #expect(run.exit == .exited(0), "\(run)")
        #expect(try run.lines.dropFirst().dropLast().map { try json($0)["model"] } == [2, 3], "\(run)")
        let human = try sandbox.ctlAtSocket("--human", "log", "--models", "--since=2")
        #expect(human.exit == .exited(0), "\(human)")
        #expect(human.lines.count == 1 && human.lines[0].hasSuffix(#"  {"type":"increment"}  model 3"#), "\(human)")
        let flag = try sandbox.ctlAtSocket("log", "--models=yes")
        #expect(flag.exit == .exited(2) && flag.stderr.contains("--models takes no value"), "\(flag)")
    }
}
