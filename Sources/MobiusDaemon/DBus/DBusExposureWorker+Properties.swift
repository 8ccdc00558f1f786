import MobiusJSON

extension DBusExposureWorker {
    /// Takes a committed state: the configured properties are read from the model when it changed. What changed is
    /// announced by `announceChanges`, once for however many states arrived meanwhile (latest-wins).
    func apply(_ state: DBusExposureMailbox.Committed) {
        let first = committed == nil
        committed = state
        guard first || state.modelChanged else { return }
        modelText = nil
        if !first { modelChangedSinceAnnounced = true }
        let problems = values.update(from: state.model).problems
        for problem in problems {
            status.update { $0.badValues += 1 }
            log.limited(
                "dbus expose value", .warning,
                "D-Bus expose: property \(problem.description); it keeps its last good value")
        }
        if first { announced = Announced(seq: state.seq, values: values.values) }
    }

    /// Emits one `PropertiesChanged(org.mobiusd.App1, {changed}, [invalidated])` for what changed since the last
    /// one: `Seq`, each configured property whose value differs, and `Model` as invalidated. Only while the name is
    /// this connection's, and only while the messages waiting to be written are under `maxOutgoingBytes`: a bus
    /// that stops reading gets no pile of signals, just one with the newest values once it reads again.
    func announceChanges() {
        guard ownsName, let connection, let committed, connection.outgoingSize < Self.maxOutgoingBytes else { return }
        var changed: [(DBusArgument, DBusArgument)] = []
        if committed.seq != announced.seq {
            changed.append((.string("Seq"), .variant(.uint64, .uint64(committed.seq))))
        }
        for (index, property) in config.properties.enumerated() where values.values[index] != announced.values[index] {
            changed.append((.string(property.name), .variant(property.type, values.values[index])))
        }
        guard !changed.isEmpty || modelChangedSinceAnnounced else { return }
        let invalidated: [DBusArgument] = modelChangedSinceAnnounced ? [.string("Model")] : []
        guard
            let signal = DBusMessage.signal(
                path: config.path, interface: Self.propertiesInterface, member: "PropertiesChanged"),
            signal.append([
                .string(Self.interface), .dictionary(key: .string, value: .variant, changed),
                .array(.string, invalidated),
            ]), connection.send(signal) != nil
        else { return }
        announced = Announced(seq: committed.seq, values: values.values)
        modelChangedSinceAnnounced = false
        status.update { $0.signals += 1 }
    }
}
