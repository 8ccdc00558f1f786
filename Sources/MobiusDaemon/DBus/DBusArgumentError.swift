/// Why a JSON value does not fit a D-Bus type; `argument` names where (`args[2]`, `args[0]["Brightness"]`).
struct DBusArgumentError: Error, CustomStringConvertible, Sendable {
    let argument: String
    let problem: String

    var description: String { "\(argument): \(problem)" }
}
