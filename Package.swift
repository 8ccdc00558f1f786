// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "mobiusd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MobiusCore", targets: ["MobiusCore"]),
        .library(name: "MobiusExtras", targets: ["MobiusExtras"]),
        .library(name: "MobiusTest", targets: ["MobiusTest"]),
        .library(name: "MobiusJSON", targets: ["MobiusJSON"]),
        .library(name: "MobiusDaemon", targets: ["MobiusDaemon"]),
        .library(name: "MobiusPlugin", targets: ["MobiusPlugin"]),
        .executable(name: "mobiusd", targets: ["mobiusd"]),
        .executable(name: "mobiusctl", targets: ["mobiusctl"]),
    ],
    // The sanitizer builds of make sanitize (docs/reliability.md, "Sanitizers"); no other build enables them.
    traits: [
        .trait(
            name: "ASan", description: "AddressSanitizer build: every process's reports go to .build/sanitizer-reports"),
        .trait(name: "TSan", description: "ThreadSanitizer build: reports as ASan; Mutex is a pthread mutex TSan sees"),
    ],
    targets: [
        .target(name: "MobiusCore"),
        .target(name: "MobiusExtras", dependencies: ["MobiusCore"]),
        .target(name: "MobiusTest", dependencies: ["MobiusCore"]),
        .target(name: "MobiusJSON"),
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .target(name: "MobiusSystem", dependencies: ["CLinux"]),
        // Scratch directories, socket pairs, process usage, sleeping and fault injection for tests and benchmarks;
        // no production binary links it.
        .target(name: "MobiusTestSupport", dependencies: ["MobiusSystem", "CLinux"]),
        .systemLibrary(name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd"),
        .systemLibrary(name: "CDBus", path: "Sources/CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .target(
            name: "MobiusDaemon", dependencies: ["MobiusCore", "MobiusJSON", "MobiusSystem", "CSystemd", "CDBus"]),
        .executableTarget(name: "mobiusd", dependencies: ["MobiusDaemon"]),
        .executableTarget(name: "mobiusctl", dependencies: ["MobiusJSON", "MobiusSystem"]),
        .executableTarget(
            name: "counter-console",
            dependencies: ["MobiusCore", "MobiusExtras"],
            path: "Examples/CounterConsole"
        ),
        .executableTarget(
            name: "mobius-bench",
            dependencies: ["MobiusCore", "MobiusExtras"],
            path: "Benchmarks/MobiusBench",
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "mobius-json-bench",
            dependencies: ["MobiusJSON"],
            path: "Benchmarks/JSONBench",
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "mobiusd-bench", dependencies: ["MobiusJSON", "MobiusSystem", "MobiusTestSupport"],
            path: "Benchmarks/DaemonBench",
            exclude: ["README.md", "callgrind.sh"]),
        .executableTarget(
            name: "mobiusd-systemd-bench", dependencies: ["MobiusSystem", "MobiusTestSupport"],
            path: "Benchmarks/SystemdBench",
            exclude: ["README.md"]),
        .target(
            name: "TodoApp", dependencies: ["MobiusCore", "MobiusDaemon", "MobiusJSON"],
            path: "Examples/Todo/Sources/TodoApp"),
        .executableTarget(
            name: "todo-daemon", dependencies: ["TodoApp", "MobiusDaemon"], path: "Examples/Todo/Sources/todo-daemon"),
        .testTarget(
            name: "TodoAppTests",
            dependencies: ["TodoApp", "MobiusTest", "MobiusCore", "MobiusJSON", "MobiusTestSupport", "todo-daemon"],
            path: "Examples/Todo/Tests/TodoAppTests"),
        // A power/sleep policy fed by logind and UPower signals (Examples/PowerPolicy/README.md).
        .executableTarget(
            name: "power-policy", dependencies: ["MobiusCore", "MobiusDaemon", "MobiusJSON"],
            path: "Examples/PowerPolicy/Sources/power-policy"),
        // The door lock of docs/apps.md as a typed Swift app (Examples/DoorLock/README.md); update.py beside it is the
        // same app as a plugin.
        .executableTarget(
            name: "door-lock", dependencies: ["MobiusCore", "MobiusDaemon"], path: "Examples/DoorLock/Sources/door-lock"
        ),
        // The plugin benchmark through the daemon (make bench): an app that relays events to effects, and a plugin on
        // MobiusPlugin that answers them.
        .executableTarget(
            name: "mobiusd-bench-relay", dependencies: ["MobiusCore", "MobiusDaemon", "MobiusJSON"],
            path: "Benchmarks/PluginDaemonBench/Relay"),
        .executableTarget(
            name: "mobiusd-bench-plugin", dependencies: ["MobiusJSON", "MobiusPlugin"],
            path: "Benchmarks/PluginDaemonBench/Plugin"),
        .testTarget(name: "MobiusJSONTests", dependencies: ["MobiusJSON"]),
        .testTarget(
            name: "MobiusCoreTests", dependencies: ["MobiusCore", "MobiusExtras", "MobiusTest", "MobiusTestSupport"]),
        .testTarget(name: "MobiusTestTests", dependencies: ["MobiusCore", "MobiusTest"]),
        .testTarget(
            name: "MobiusDaemonTests",
            dependencies: ["MobiusDaemon", "MobiusJSON", "MobiusSystem", "MobiusTestSupport"]),
        // A typed app with two Swift routes for one effect, for the integration tests.
        .executableTarget(
            name: "mobiusd-fixture-route-conflict", dependencies: ["MobiusCore", "MobiusDaemon"],
            path: "Tests/Fixtures/RouteConflictApp"),
        // A JSON app whose update blocks on a FIFO on request, for the watchdog tests.
        .executableTarget(
            name: "mobiusd-fixture-wedge",
            dependencies: ["MobiusCore", "MobiusDaemon", "MobiusJSON", "MobiusSystem", "MobiusTestSupport"],
            path: "Tests/Fixtures/WedgeApp"),
        // A JSON app that records every event, for the D-Bus integration tests.
        .executableTarget(
            name: "mobiusd-fixture-dbus-recorder", dependencies: ["MobiusCore", "MobiusDaemon", "MobiusJSON"],
            path: "Tests/Fixtures/DBusRecorderApp"),
        // Spawns the built mobiusd, mobiusctl and fixtures; depends on them so `swift test` builds them first.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "MobiusJSON", "MobiusSystem", "MobiusTestSupport", "mobiusd", "mobiusctl",
                "mobiusd-fixture-route-conflict",
                "mobiusd-fixture-wedge", "mobiusd-fixture-dbus-recorder", "power-policy", "todo-daemon", "door-lock",
            ]),
        // Plugins: the Swift SDK, the plugins written with it, and the SDK's tests with their fixture plugin.
        .target(name: "MobiusPlugin", dependencies: ["MobiusJSON", "MobiusSystem"]),
        .executableTarget(
            name: "mobiusd-fixture-plugin", dependencies: ["MobiusPlugin", "MobiusJSON"],
            path: "Tests/Fixtures/SDKPlugin"),
        .executableTarget(
            name: "mobiusd-plugin-bench", dependencies: ["MobiusJSON", "MobiusSystem"], path: "Benchmarks/PluginBench",
            exclude: ["README.md"]),
        .executableTarget(
            name: "mobiusd-beep", dependencies: ["MobiusPlugin", "MobiusJSON", "MobiusSystem"], path: "Plugins/beep",
            exclude: ["README.md"]),
        .testTarget(
            name: "MobiusPluginTests",
            dependencies: [
                "MobiusPlugin", "MobiusJSON", "MobiusSystem", "MobiusTestSupport", "mobiusd-fixture-plugin",
                "mobiusd-beep",
            ]),
    ]
)

// The libFuzzer targets (docs/reliability.md, "Fuzzing"), only in the build `make fuzz` makes: their program links
// libFuzzer, which only `-sanitize=fuzzer` provides.
if Context.environment["MOBIUSD_FUZZ"] == "1" {
    package.targets += [
        .systemLibrary(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .executableTarget(
            name: "mobiusd-fuzz",
            dependencies: ["CLibFuzzer", "MobiusDaemon", "MobiusJSON", "MobiusSystem", "MobiusTestSupport"],
            path: "Fuzz/Sources"),
    ]
}

// Linked only under the traits: the sanitizers' default options (C), and the pthread mutex that stands for
// Synchronization's under ThreadSanitizer.
let sanitizerTargets: [Target] = [.target(name: "SanitizerReports"), .target(name: "SanitizerLocks")]
package.targets += sanitizerTargets

// Swift 6 language mode and strict concurrency everywhere, set in one place. Under TSan, a module that uses `Mutex`
// declares it as SanitizerLocks' `PthreadMutex` (its Mutex+ThreadSanitizer.swift).
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    target.swiftSettings = settings
    if sanitizerTargets.contains(where: { $0 === target }) { continue }
    target.dependencies += [
        .target(name: "SanitizerReports", condition: .when(traits: ["ASan", "TSan"])),
        .target(name: "SanitizerLocks", condition: .when(traits: ["TSan"])),
    ]
}
