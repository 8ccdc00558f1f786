import MobiusJSON

extension DBusSources {
    /// Queues an event from a `mobiusd.dbus.*` effect at once, decoded by the app's codec (a rejection is counted
    /// and logged like other sources').
    static func delivery<Model, Event, Effect>(
        to loop: DaemonLoop<Model, Event, Effect>, stats: DaemonStats, log: DaemonLog
    ) -> (JSONValue) -> Void {
        { [unowned loop] json in
            do {
                loop.enqueue(.event(try loop.decodeEvent(json), json: json, source: .dbus, ticket: nil))
            } catch {
                stats.rejectedUndecodable(from: .dbus)
                log.limited(
                    "event rejected", .warning,
                    "event from mobiusd.dbus.call rejected: \(EventRejection.message(for: error))")
            }
        }
    }

    /// Wires a bus thread's inbox to `loop`: each event is decoded by the app's codec (a rejection is counted and
    /// logged like other sources'), traced to monitors as `{"trace":"dbus","source":…,"event":…}`, and queued as a
    /// `dbus` event.
    static func attachment<Model, Event, Effect>(
        to loop: DaemonLoop<Model, Event, Effect>, stats: DaemonStats, log: DaemonLog
    ) -> (DBusBusWorker) -> Void {
        { [unowned loop] worker in
            loop.attach(worker.inbox) { delivery in
                worker.release(cost: delivery.cost)
                let monitors = loop.monitorList
                if !monitors.isEmpty {
                    loop.trace(LoopLines.dbusTrace(source: delivery.source, event: delivery.event), to: monitors)
                }
                do {
                    let event = try loop.decodeEvent(delivery.event)
                    return .event(event, json: delivery.event, source: .dbus, ticket: nil)
                } catch {
                    stats.rejectedUndecodable(from: .dbus)
                    log.limited(
                        "event rejected", .warning,
                        "event from D-Bus source \(delivery.source) rejected: \(EventRejection.message(for: error))")
                    return nil
                }
            }
        }
    }
}
