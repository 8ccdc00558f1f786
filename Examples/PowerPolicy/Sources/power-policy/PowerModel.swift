/// What the power policy knows and decides: the power source and charge (UPower), whether the machine is about to
/// sleep (logind), and the mode derived from them.
struct PowerModel: Codable, Equatable, Sendable {
    /// Thresholds and where to announce, from the config's `model`.
    struct Settings: Codable, Equatable, Sendable {
        /// The bus the mode is announced on (and logind is called on): `system` on a real machine.
        var bus = "system"
        /// Below this charge on battery the mode is `saver`.
        var saverBelow = 20.0
        /// Below this charge on battery the mode is `critical`.
        var criticalBelow = 5.0
        /// Whether `critical` asks logind to suspend (off by default: an example should not put a machine to sleep).
        var suspendWhenCritical = false
    }

    var settings = Settings()
    var onBattery = false
    /// The charge in percent, once UPower has said.
    var percentage: Double?
    /// Between PrepareForSleep(true) and PrepareForSleep(false).
    var sleeping = false
    /// `normal`, `saver` or `critical`.
    var mode = "normal"
    /// Whether a suspend was asked for in this critical period.
    var suspendRequested = false
    /// Sleeps seen since the model began.
    var sleeps = 0
}
