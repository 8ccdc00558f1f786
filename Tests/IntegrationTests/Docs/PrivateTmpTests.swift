import Foundation
import MobiusSystem
import MobiusTestSupport
import Testing

/// The private /tmp of the documentation checks keeps a checkout that CI cloned under /tmp (and its build) visible
/// at its own path, and nothing else of the real /tmp.
@Suite(
    .serialized, .timeLimit(.scaled(minutes: 1)),
    .enabled(if: SystemTools.canUnshareMounts, "needs unshare --mount (root) for a private /tmp"))
struct PrivateTmpTests {
    @Test("a directory kept from the real /tmp is there, writable; its siblings and the rest of /tmp are not")
    func keepsOnlyTheGivenDirectories() throws {
        let outer = try TemporaryDirectory(prefix: "mobiusd-privatetmp", parent: "/tmp")
        defer { try? FileManager.default.removeItem(atPath: outer.path) }
        let checkout = "\(outer.path)/checkout"
        let build = "\(checkout)/.build/debug"
        try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(outer.path)/sibling", withIntermediateDirectories: true)
        _ = try outer.write("checkout\n", to: "checkout/marker")
        let script = """
            cat '\(checkout)/marker'
            [ -d '\(build)' ] && echo build
            [ -e '\(outer.path)/sibling' ] && echo sibling
            ls -A /tmp | grep -v '^mobiusd-privatetmp' || echo "only the kept path"
            echo written > '\(checkout)/from-inside'
            """
        let run = try PrivateTmp.run(script, keeping: [checkout, build, "/nonexistent", "/usr"])
        #expect(run.exit == .exited(0), "\(run.stderr)")
        #expect(run.stdoutLines == ["checkout", "build", "only the kept path"], "\(run.stdout)\(run.stderr)")
        let written = try String(contentsOfFile: "\(checkout)/from-inside", encoding: .utf8)
        #expect(written == "written\n")
    }

    @Test("the documentation scripts keep this package and its build, wherever the checkout is")
    func keepsThePackage() throws {
        let run = try PrivateTmp.run(
            "cd '\(DocCatalog.packageDirectory)' && [ -f Package.swift ] && [ -x '\(DaemonSpawn.fixture("mobiusd"))' ]")
        #expect(run.exit == .exited(0), "\(run.stderr)")
    }
}
