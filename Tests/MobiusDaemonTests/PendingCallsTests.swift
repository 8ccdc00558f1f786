import Testing

@testable import MobiusDaemon

/// `PendingCalls` against a `Dictionary` doing the same inserts, replacements and removals: ids in order as the
/// host hands them out, ids whose low bits collide, a long-lived id among many short ones, and growth.
@Suite struct PendingCallsTests {
    private func tag(_ call: PluginCall?) -> String? {
        switch call {
        case nil: return nil
        case .initialize?: return "initialize"
        case .shutdown?: return "shutdown"
        case .effect(let effect, let deadline)?: return "effect \(effect) \(deadline)"
        case .update(let update)?: return "update \(update.method)"
        }
    }

    private func expectSame(_ table: PendingCalls, _ model: [Int64: PluginCall], probing ids: [Int64]) {
        #expect(table.count == model.count)
        for id in ids { #expect(tag(table[id]) == tag(model[id]), "id \(id)") }
        #expect(table.entries.map(\.id) == model.keys.sorted())
    }

    @Test func randomOperationsMatchADictionary() {
        var generator = SystemRandomNumberGenerator()
        var table = PendingCalls()
        var model: [Int64: PluginCall] = [:]
        var next: Int64 = 0
        var touched: [Int64] = []
        for step in 0..<20_000 {
            let roll = Int.random(in: 0..<10, using: &generator)
            if roll < 5 || model.isEmpty {
                // A new id, in order; every 7th jumps ahead by a multiple of the table's sizes so low bits collide.
                next += step % 7 == 0 ? 1024 : 1
                let call = PluginCall.effect(effect: .number(.init(next)), deadline: UInt64(step))
                table[next] = call
                model[next] = call
                touched.append(next)
            } else if roll < 9 {
                let id = model.keys.randomElement(using: &generator)!
                #expect(tag(table.removeValue(forKey: id)) == tag(model.removeValue(forKey: id)))
            } else {
                let id = model.keys.randomElement(using: &generator)!
                table[id] = .shutdown
                model[id] = .shutdown
            }
            if step % 1000 == 0 { expectSame(table, model, probing: touched.suffix(300) + [-5, next + 1]) }
        }
        expectSame(table, model, probing: touched)
    }

    @Test func aLongLivedCallStaysFoundWhileThousandsComeAndGo() {
        var table = PendingCalls()
        table[3] = .initialize
        for id: Int64 in 4..<100_000 {
            table[id] = .shutdown
            if id >= 260 { #expect(table.removeValue(forKey: id - 256) != nil) }
        }
        #expect(tag(table[3]) == "initialize")
        #expect(table.count == 1 + 256)
        #expect(table.removeValue(forKey: 3) != nil && table[3] == nil)
        table.removeAll()
        #expect(table.count == 0 && table.entries.isEmpty)
    }
}
