/// The settings a reload cannot apply to a running daemon: they are fixed when the socket is bound, the state is
/// recovered or the loop starts.
enum RestartOnlySettings {
    /// The names of the restart-only settings that differ between `old` and `new`.
    static func changes<Model, Event, Effect>(
        from old: DaemonSetup<Model, Event, Effect>, to new: DaemonSetup<Model, Event, Effect>
    ) -> [String] {
        var changed: [String] = []
        func compare<Value: Equatable>(_ key: String, _ before: Value, _ after: Value) {
            if before != after { changed.append(key) }
        }
        compare("app", old.app.name, new.app.name)
        compare("model", old.config.model, new.config.model)
        compare("update", old.config.update, new.config.update)
        compare("expose", old.config.expose, new.config.expose)
        compare("socket.path", old.socketPath, new.socketPath)
        compare("socket.mode", old.config.socketMode, new.config.socketMode)
        compare("socket.group", old.socketGroup, new.socketGroup)
        compare("state.directory", old.config.stateDirectory, new.config.stateDirectory)
        compare("state.fsync", old.config.fsync, new.config.fsync)
        compare("state.snapshotEvents", old.config.snapshotEvents, new.config.snapshotEvents)
        compare("state.snapshotBytes", old.config.snapshotBytes, new.config.snapshotBytes)
        compare("state.segmentBytes", old.config.segmentBytes, new.config.segmentBytes)
        compare("state.logWindowBytes", old.config.logWindowBytes, new.config.logWindowBytes)
        compare("state.keepSnapshots", old.config.keepSnapshots, new.config.keepSnapshots)
        return changed
    }
}
