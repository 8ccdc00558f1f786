/// The two servers under test and the bytes each one speaks. Every reply and push message ends in `\n`, so the
/// generator counts lines: `linesPer…` says how many lines one logical message is.
enum ServerKind: String, CaseIterable, Sendable {
    case mobiusd
    case redis

    /// One event: a JSON line for mobiusd, `PUBLISH c {"type":"increment"}` in RESP for redis.
    var event: [UInt8] {
        switch self {
        case .mobiusd: Array(#"{"type":"increment"}"#.utf8) + [0x0A]
        case .redis: Array("*3\r\n$7\r\nPUBLISH\r\n$1\r\nc\r\n$20\r\n{\"type\":\"increment\"}\r\n".utf8)
        }
    }

    /// How the reply to one `event` starts: `{"ok":true,"seq":N}` vs `:N` (subscribers reached).
    var acknowledgement: [UInt8] {
        switch self {
        case .mobiusd: Array(#"{"ok":true"#.utf8)
        case .redis: [UInt8(ascii: ":")]
        }
    }

    /// The request that makes a connection a subscriber.
    var subscribeRequest: [UInt8] {
        switch self {
        case .mobiusd: Array("subscribe\n".utf8)
        case .redis: Array("*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nc\r\n".utf8)
        }
    }

    /// Lines of the reply to `subscribeRequest`: `{"ok":true,...}` vs `*3 $9 subscribe $1 c :1`.
    var subscribeReplyLines: Int {
        switch self {
        case .mobiusd: 1
        case .redis: 6
        }
    }

    /// Lines of one pushed change: `{"seq":N,"model":M}` vs `*3 $7 message $1 c $20 payload`.
    var pushLines: Int {
        switch self {
        case .mobiusd: 1
        case .redis: 7
        }
    }
}
