// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mobiusd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MobiusCore", targets: ["MobiusCore"]),
        .library(name: "MobiusExtras", targets: ["MobiusExtras"]),
        .library(name: "MobiusTest", targets: ["MobiusTest"]),
    ],
    targets: [
        .target(name: "MobiusCore"),
        .target(name: "MobiusExtras", dependencies: ["MobiusCore"]),
        .target(name: "MobiusTest", dependencies: ["MobiusCore"]),
        .executableTarget(
            name: "mobius-counter-demo",
            dependencies: ["MobiusCore", "MobiusExtras"],
            path: "Sources/MobiusCounterDemo"
        ),
        .executableTarget(
            name: "mobius-bench",
            dependencies: ["MobiusCore", "MobiusExtras"],
            path: "Benchmarks/MobiusBench"
        ),
        .testTarget(name: "MobiusCoreTests", dependencies: ["MobiusCore", "MobiusExtras", "MobiusTest"]),
        .testTarget(name: "MobiusTestTests", dependencies: ["MobiusCore", "MobiusTest"]),
    ]
)

// Swift 6 language mode and strict concurrency everywhere, set in one place.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    target.swiftSettings = settings
}
