import Testing

@testable import MobiusDaemon

/// The logger's formats: `<N>` lines for the journal's stream, timestamped lines for people, journal records with
/// fields; a message can never break out of its line.
@Suite("Log formats")
struct DaemonLogFormatTests {
    @Test("a journal-stream line is <priority>message; line breaks in the message are escaped")
    func streamLine() {
        #expect(DaemonLog.format(.warning, "disk full", journal: true) == Array("<4>disk full\n".utf8))
        let hostile = DaemonLog.format(.info, "plugin says hi\n<0>fake emergency\r", journal: true)
        #expect(String(decoding: hostile, as: UTF8.self) == "<6>plugin says hi\\n<0>fake emergency\\r\n")
    }

    @Test("every control character in a message is escaped, in lines and in journal records")
    func controlCharacters() {
        let hostile = "nul \u{0} esc \u{1B}[31m bel \u{07} tab \t del \u{7F} nel \u{85} kept é ¢ \\x00"
        let escaped = #"nul \x00 esc \x1b[31m bel \x07 tab \t del \x7f nel \u0085 kept é ¢ \x00"#
        #expect(String(decoding: DaemonLog.format(.info, hostile, journal: true), as: UTF8.self) == "<6>\(escaped)\n")
        #expect(
            DaemonLog.journalRecord(.info, hostile, LogFields(plugin: "a\u{0}b")) == [
                "MESSAGE=\(escaped)", "PRIORITY=6", "SYSLOG_IDENTIFIER=mobiusd", #"MOBIUSD_PLUGIN=a\x00b"#,
            ])
        #expect(DaemonLog.escaped("plain ascii and ünïcode") == "plain ascii and ünïcode")
    }

    @Test("another program's bytes become text with each byte that is not UTF-8 as \\xNN")
    func programText() {
        let bytes: [UInt8] = [0x61, 0xFF, 0xC3, 0x20, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0, 0x80, 0xF0, 0x9F, 0x98]
        #expect(DaemonLog.text(bytes[...]) == #"a\xff\xc3 é€\xed\xa0\x80\xf0\x9f\x98"#)
        #expect(DaemonLog.text(Array("plain é".utf8)[...]) == "plain é")
    }

    @Test("a line for people has an RFC 3339 UTC timestamp with milliseconds and the level")
    func plainLine() {
        let line = String(decoding: DaemonLog.format(.notice, "ready", journal: false), as: UTF8.self)
        let parts = line.split(separator: " ")
        #expect(parts.count == 3 && parts[1] == "notice" && parts[2] == "ready\n", "\(line)")
        #expect(parts[0].count == 24 && parts[0].hasSuffix("Z") && parts[0].contains("T"), "\(line)")
    }

    @Test("a journal record carries message, priority, identifier and only the fields that are set")
    func journalRecord() {
        let record = DaemonLog.journalRecord(.error, "two\nlines", LogFields(plugin: "sound", seq: 42))
        #expect(
            record == [
                #"MESSAGE=two\nlines"#, "PRIORITY=3", "SYSLOG_IDENTIFIER=mobiusd", "MOBIUSD_PLUGIN=sound",
                "MOBIUSD_SEQ=42",
            ])
        #expect(LogFields(source: "dbus").journalFields == ["MOBIUSD_SOURCE=dbus"])
        #expect(DaemonLog.journalRecord(.info, "x", nil).count == 3)
    }

}
