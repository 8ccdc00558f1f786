import MobiusJSON

/// The apps compiled into `mobiusd`, by the name config uses: `{"update":{"builtin":"counter"}}`.
///
/// Adding a built-in: write its file in Apps/ (a `make()` returning a `DaemonApp`) and add its line here.
public enum BuiltinApps {
    /// Every built-in app by name.
    public static let all: [String: @Sendable () -> DaemonApp<JSONValue, JSONValue, JSONValue>] = [
        "counter": CounterApp.make,
        "store": StoreApp.make,
    ]

    /// The app `mobiusd` runs without a config file.
    public static let defaultName = "counter"
}
