import MobiusJSON

extension DBusExposureWorker {
    /// Takes a committed state: the configured properties are read from the model, and one `PropertiesChanged`
    /// announces what changed (`Seq`, the properties with their values, `Model` as invalidated) while the name is
    /// this connection's. States the thread did not get to were skipped (latest-wins), so at most one per pass.
    func apply(_ state: DBusExposureMailbox.Committed) {
        let first = committed == nil
        committed = state
        guard first || state.modelChanged || state.seq != announcedSeq else { return }
        var changedIndices: [Int] = []
        if first || state.modelChanged {
            modelText = nil
            let (changed, problems) = values.update(from: state.model)
            changedIndices = changed
            for problem in problems {
                status.update { $0.badValues += 1 }
                log.limited(
                    "dbus expose value", .warning,
                    "D-Bus expose: property \(problem.description); it keeps its last good value")
            }
        }
        guard !first else {
            announcedSeq = state.seq
            return
        }
        announce(seqChanged: state.seq != announcedSeq, modelChanged: state.modelChanged, properties: changedIndices)
        announcedSeq = state.seq
    }

    /// Emits `PropertiesChanged(org.mobiusd.App1, {changed}, [invalidated])` when the name is this connection's.
    private func announce(seqChanged: Bool, modelChanged: Bool, properties: [Int]) {
        guard ownsName, let connection, seqChanged || modelChanged || !properties.isEmpty else { return }
        var changed: [(DBusArgument, DBusArgument)] = []
        if seqChanged, let seq = committed?.seq { changed.append((.string("Seq"), .variant(.uint64, .uint64(seq)))) }
        for index in properties {
            let property = config.properties[index]
            changed.append((.string(property.name), .variant(property.type, values.values[index])))
        }
        let invalidated: [DBusArgument] = modelChanged ? [.string("Model")] : []
        guard
            let signal = DBusMessage.signal(
                path: config.path, interface: Self.propertiesInterface, member: "PropertiesChanged"),
            signal.append([
                .string(Self.interface), .dictionary(key: .string, value: .variant, changed),
                .array(.string, invalidated),
            ]), connection.send(signal) != nil
        else { return }
        status.update { $0.signals += 1 }
    }
}
