import Foundation
import MobiusSystem
import Testing

/// Issue 22 item 10: a clone is the whole project. No file names a document outside the repository (the protocol
/// reference is docs/protocol.md), and the packages the README lists are the ones `make deps` installs.
@Suite(.timeLimit(.scaled(minutes: 1)))
struct RepositoryHygieneTests {
    /// How files once pointed outside the repository (spelled apart here so this file does not match itself).
    static let outsideReferences = [
        "../" + "shared", "shared" + "/", "PROTOCOL" + ".md", "DESIGN" + ".md", "STYLE" + ".md",
    ]

    /// Every file of the package, relative to it, without build products, caches and git's own files.
    static func packageFiles() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: DocCatalog.packageDirectory)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            let skipped = [".build", ".git", ".swiftpm", "__pycache__", "bench-results"]
            if path.split(separator: "/").contains(where: { skipped.contains(String($0)) }) {
                enumerator?.skipDescendants()
                continue
            }
            let status = try? FileSystem.status("\(DocCatalog.packageDirectory)/\(path)")
            if status?.kind == .regularFile { found.append(path) }
        }
        return found.sorted()
    }

    @Test("no file refers to a document outside the repository")
    func nothingPointsOutside() throws {
        var offenders: [String] = []
        for file in Self.packageFiles() {
            guard let bytes = try? FileSystem.read("\(DocCatalog.packageDirectory)/\(file)") else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() {
                let cited =
                    Self.outsideReferences.contains { line.contains($0) }
                    || line.range(of: "PROTOCOL [0-9]", options: .regularExpression) != nil
                if cited { offenders.append("\(file):\(number + 1): \(line)") }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    @Test(
        "the README lists the Makefile's APT_PACKAGES",
        .enabled(if: DaemonSpawn.which("make") != nil, "make is missing"))
    func readmeListsTheMakefilesPackages() throws {
        let make = try DaemonToolRun.run(
            try #require(DaemonSpawn.which("make")),
            [
                "--no-print-directory", "-C", DocCatalog.packageDirectory,
                "--eval", "print-apt-packages: ; @echo $(APT_PACKAGES)", "print-apt-packages",
            ])
        #expect(make.exit == .exited(0), "\(make.stderr)")
        let readme = try String(contentsOfFile: "\(DocCatalog.packageDirectory)/README.md", encoding: .utf8)
        let listed = try #require(
            readme.components(separatedBy: "<!-- apt-packages -->\n").dropFirst().first?
                .components(separatedBy: "<!-- /apt-packages -->").first, "README.md has no apt-packages list")
        #expect(
            listed.split(whereSeparator: \.isWhitespace) == make.stdout.split(whereSeparator: \.isWhitespace),
            "README.md lists \(listed), the Makefile installs \(make.stdout)")
    }
}
