import MobiusJSON
import MobiusPlugin
import MobiusSystem

/// What the beep plugin's `options` say, checked at `initialize`.
struct BeepOptions: Sendable {
    /// A player command to run first (argv, looked up on PATH), e.g. `["aplay", "-q", "/path/bell.wav"]`.
    var command: [String]? = nil
    /// The sound file for `paplay` when no command is configured.
    var sound = "/usr/share/sounds/freedesktop/stereo/bell.oga"
    /// Where to write the BEL character when no player works: a terminal or a file.
    var bell = "/dev/tty"
    /// The event to answer each beep with (plus `"via"`), or none.
    var event: JSONObject? = nil

    static let keys: Set<String> = ["command", "sound", "bell", "event"]

    /// Reads `options`; throws a `PluginError` naming the key when one is malformed or unknown.
    init(_ options: JSONObject) throws {
        if let unknown = options.keys.first(where: { !Self.keys.contains($0) }) {
            throw PluginError("unknown option \(unknown) (beep takes command, sound, bell, event)")
        }
        if let command = options["command"] {
            guard let argv = command.arrayValue?.compactMap(\.stringValue), !argv.isEmpty,
                argv.count == command.arrayValue?.count, !argv.contains(where: { $0.contains("\0") })
            else { throw PluginError("options.command must be a non-empty array of strings") }
            self.command = argv
        }
        if let sound = options["sound"] {
            guard let path = sound.stringValue, !path.isEmpty else {
                throw PluginError("options.sound must be a file path")
            }
            self.sound = path
        }
        if let bell = options["bell"] {
            guard let path = bell.stringValue, path.hasPrefix("/") else {
                throw PluginError("options.bell must be an absolute path (a terminal or a file)")
            }
            self.bell = path
        }
        if let event = options["event"] {
            guard case .object(let template) = event else {
                throw PluginError("options.event must be an object (the event template)")
            }
            self.event = template
        }
    }
}
