/// Checks of D-Bus names and paths against the specification, in Swift, so config and effects are refused with a
/// message before anything reaches libdbus (which treats a bad name as a programmer error).
enum DBusNames {
    static let maxNameLength = 255

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// `/`, or `/` followed by elements of `[A-Za-z0-9_]+` separated by single slashes, no trailing slash.
    static func isObjectPath(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        // The leading slash counts: `//a` has an empty first element.
        var previousSlash = true
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if previousSlash { return false }
                previousSlash = true
            } else {
                guard isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_") else { return false }
                previousSlash = false
            }
        }
        return true
    }

    /// At least two dot-separated elements of `[A-Za-z_][A-Za-z0-9_]*`, at most 255 bytes (interfaces, errors).
    static func isInterface(_ text: String) -> Bool {
        let elements = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard text.utf8.count <= maxNameLength, elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.first, isLetter(first) || first == UInt8(ascii: "_") else { return false }
            return element.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
        }
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`, 1 to 255 bytes.
    static func isMember(_ text: String) -> Bool {
        let bytes = text.utf8
        guard let first = bytes.first, bytes.count <= maxNameLength, isLetter(first) || first == UInt8(ascii: "_")
        else { return false }
        return bytes.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    /// A unique name (`:1.42`) or a well-known name (`org.freedesktop.UPower`).
    static func isBusName(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        guard !bytes.isEmpty, text.utf8.count <= maxNameLength else { return false }
        let unique = bytes.first == UInt8(ascii: ":")
        if unique { bytes = bytes.dropFirst() }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.first else { return false }
            if !unique && isDigit(first) { return false }
            return element.allSatisfy {
                isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
        }
    }

    /// Transports an address may name. libdbus also knows `unixexec:` (runs a program), `autolaunch:` and
    /// `launchd:` (start or look up a bus through other programs): an address that reached the daemon through an
    /// app's effect could then make it execute something, so they are refused.
    static let transports: Set<Substring> = ["unix", "tcp", "nonce-tcp"]

    /// `system`, `session`, or an address `transport:key=value,…` (several separated by `;`) whose transports are
    /// `unix`, `tcp` or `nonce-tcp`.
    static func isBus(_ text: String) -> Bool {
        if text == "system" || text == "session" { return true }
        guard !text.isEmpty, text.utf8.count <= 4096 else { return false }
        return text.split(separator: ";").allSatisfy { entry in
            guard let colon = entry.firstIndex(of: ":"), transports.contains(entry[..<colon]) else { return false }
            let pairs = entry[entry.index(after: colon)...].split(separator: ",")
            return pairs.allSatisfy { pair in
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { return false }
                return !pair[pair.index(after: equals)...].isEmpty
            }
        }
    }
}
