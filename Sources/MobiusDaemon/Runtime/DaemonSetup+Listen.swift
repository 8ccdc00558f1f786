import MobiusSystem

extension DaemonSetup {
    /// Checks the socket's directory, binds `socketPath`, sets the socket file's mode and group, and only then
    /// listens (docs/protocol.md 1.1); used when systemd passed no socket.
    func bindListener() throws(DaemonStartError) -> FileDescriptor {
        let directory = socketPath.lastIndex(of: "/").map { String(socketPath[..<$0]) } ?? "."
        do {
            try SocketDirectory.prepare(
                directory.isEmpty ? "/" : directory, mode: isPrivateFallback ? 0o700 : 0o755,
                uid: SystemProcess.userID, gid: SystemProcess.groupID)
        } catch {
            throw DaemonStartError(description: "\(error)")
        }
        let listener: FileDescriptor
        do {
            listener = try UnixSocket.listen(path: socketPath, mode: config.socketMode, group: socketGroup)
        } catch  where error.operation == "bind" && error.errno == Errno.addressInUse {
            throw DaemonStartError(
                description: "\(socketPath): another mobiusd is already running there (it accepts connections)")
        } catch  where error.operation == "chmod" || error.operation == "chown" {
            throw DaemonStartError(description: "cannot set the socket's permissions: \(error)")
        } catch {
            throw DaemonStartError(description: "cannot listen on \(socketPath): \(error)")
        }
        return listener
    }
}
