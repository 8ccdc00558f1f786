import MobiusJSON
import MobiusTestSupport
import Synchronization
import Testing

@testable import MobiusDaemon
@testable import MobiusSystem

/// docs/protocol.md 1.1: the socket file gets `socket.mode` and `socket.group` before the daemon listens on it, so no
/// client connects while the file still has the mode the umask gave it at bind() (0777 under umask 0).
@Suite("Control socket permissions")
struct ControlSocketPermissionTests {
    @Test("while the mode and group are being set, a connect() is refused; afterwards the socket accepts")
    func nobodyConnectsBeforeThePermissionsApply() throws {
        let directory = try TemporaryDirectory(prefix: "mobiusd-socket")
        defer { directory.remove() }
        let path = directory.file("x.sock")
        let config = try DaemonConfig(
            json: [
                "update": ["builtin": "counter"],
                "socket": ["mode": "0600", "group": .string("\(SystemProcess.groupID)")],
            ],
            baseDirectory: directory.path)
        var options = DaemonOptions()
        options.socketPath = path
        let setup = try DaemonSetup(config: config, options: options, app: CounterApp.make())

        // At each chmod and chown of the socket file, a client tries to connect.
        let attempts = Mutex<[String]>([])
        let token = SystemCallFaults.install { site in
            guard site.call == .chmod || site.call == .chown, site.path == path else { return nil }
            let outcome: String
            do throws(SystemError) {
                try UnixSocket.connect(path: path).close()
                outcome = "\(site.call.rawValue): connected"
            } catch {
                outcome = "\(site.call.rawValue): \(error.errno == .connectionRefused ? "refused" : error.reason)"
            }
            attempts.withLock { $0.append(outcome) }
            return nil
        }
        let listener: FileDescriptor
        do {
            defer { SystemCallFaults.remove(token) }
            listener = try setup.bindListener()
        }
        defer { listener.close() }
        #expect(attempts.withLock { $0 } == ["chmod: refused", "chown: refused"])
        #expect(try FileSystem.status(path)?.permissions == 0o600)
        // Listening once its permissions are set.
        try UnixSocket.connect(path: path).close()
    }
}
