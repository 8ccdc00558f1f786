import MobiusSystem

extension DaemonSetup {
    /// Checks the socket's directory, binds and listens on `socketPath`, and sets the socket file's mode and group
    /// (docs/protocol.md 1.1); used when systemd passed no socket.
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
            listener = try UnixSocket.listen(path: socketPath)
        } catch  where error.operation == "bind" && error.errno == Errno.addressInUse {
            throw DaemonStartError(
                description: "\(socketPath): another mobiusd is already running there (it accepts connections)")
        } catch {
            throw DaemonStartError(description: "cannot listen on \(socketPath): \(error)")
        }
        do {
            try FileSystem.setMode(socketPath, config.socketMode)
            if let socketGroup { try FileSystem.setGroup(socketPath, socketGroup) }
        } catch {
            listener.close()
            try? FileSystem.remove(socketPath)
            throw DaemonStartError(description: "cannot set the socket's permissions: \(error)")
        }
        return listener
    }
}
