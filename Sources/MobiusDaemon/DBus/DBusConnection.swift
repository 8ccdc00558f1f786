internal import CDBus
import MobiusSystem

/// A private libdbus connection to one bus, used by one thread only (its `DBusBusWorker`).
///
/// Private (`dbus_bus_get_private` / `dbus_connection_open_private`), so nothing else in the process shares it,
/// and with exit-on-disconnect off: libdbus would otherwise `_exit` the daemon when the bus goes away.
final class DBusConnection {
    let raw: OpaquePointer
    private var filter: Unmanaged<FilterBox>?

    /// What the filter calls for every message the connection dispatches; `true` when it answered the message.
    private final class FilterBox {
        let handle: (DBusMessage) -> Bool
        init(_ handle: @escaping (DBusMessage) -> Bool) { self.handle = handle }
    }

    private init(raw: OpaquePointer) {
        self.raw = raw
        dbus_connection_set_exit_on_disconnect(raw, 0)
    }

    /// Connects and registers with the bus (`Hello`). Blocks the calling thread (the bus thread) until the bus
    /// answers or libdbus's default timeout (25 s) passes.
    /// - Parameter bus: `system`, `session` (from `DBUS_SESSION_BUS_ADDRESS`) or an address.
    /// - Throws: `DBusFailure` with libdbus's error name and message.
    static func open(bus: String) throws(DBusFailure) -> DBusConnection {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let raw: OpaquePointer?
        switch bus {
        case "system": raw = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case "session": raw = dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        default:
            raw = dbus_connection_open_private(bus, &error)
            if let raw {
                dbus_connection_set_exit_on_disconnect(raw, 0)
                guard dbus_bus_register(raw, &error) != 0 else {
                    let failure = failure(&error)
                    dbus_connection_close(raw)
                    dbus_connection_unref(raw)
                    throw failure
                }
            }
        }
        guard let raw else { throw failure(&error) }
        return DBusConnection(raw: raw)
    }

    private static func failure(_ error: inout DBusError) -> DBusFailure {
        guard dbus_error_is_set(&error) != 0 else {
            return DBusFailure(name: "org.freedesktop.DBus.Error.Failed", message: "libdbus gave no reason")
        }
        return DBusFailure(
            name: error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
            message: error.message.map { String(cString: $0) } ?? "")
    }

    /// Closes the connection and drops it.
    func close() {
        dbus_connection_close(raw)
        if let filter {
            dbus_connection_remove_filter(raw, Self.filterFunction, filter.toOpaque())
            filter.release()
            self.filter = nil
        }
        dbus_connection_unref(raw)
    }

    /// The unique name the bus gave this connection (`:1.42`).
    var uniqueName: String? { dbus_bus_get_unique_name(raw).map { String(cString: $0) } }

    /// The socket, for the bus thread's epoll set.
    var socket: FileDescriptor? {
        var fd: Int32 = -1
        guard dbus_connection_get_socket(raw, &fd) != 0, fd >= 0 else { return nil }
        return FileDescriptor(rawValue: fd)
    }

    var isConnected: Bool { dbus_connection_get_is_connected(raw) != 0 }

    /// Whether messages wait to be written (then the socket is watched for writability too).
    var hasMessagesToSend: Bool { dbus_connection_has_messages_to_send(raw) != 0 }

    /// Installs the one filter: every message the connection dispatches goes to `handle`, which may keep it and
    /// returns whether it answered it (a method call nobody answers gets libdbus's `UnknownMethod` error).
    func setFilter(_ handle: @escaping (DBusMessage) -> Bool) {
        let box = Unmanaged.passRetained(FilterBox(handle))
        filter = box
        _ = dbus_connection_add_filter(raw, Self.filterFunction, box.toOpaque(), nil)
    }

    private static let filterFunction: DBusHandleMessageFunction = { _, message, data in
        guard let message, let data,
            Unmanaged<FilterBox>.fromOpaque(data).takeUnretainedValue().handle(DBusMessage(retaining: message))
        else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        return DBUS_HANDLER_RESULT_HANDLED
    }

    /// Adds a match rule and waits for the bus's answer.
    /// - Throws: the bus's error (a malformed rule, too many rules for this connection).
    func addMatch(_ rule: String) throws(DBusFailure) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        dbus_bus_add_match(raw, rule, &error)
        if dbus_error_is_set(&error) != 0 { throw Self.failure(&error) }
    }

    /// Sends `message` and waits up to `timeoutMilliseconds` for its reply. Other messages arriving meanwhile
    /// stay queued for the next dispatch.
    /// - Throws: the error reply, a timeout (`NoReply`), or a lost connection.
    func call(_ message: DBusMessage, timeoutMilliseconds: Int32) throws(DBusFailure) -> DBusMessage {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let reply = dbus_connection_send_with_reply_and_block(raw, message.raw, timeoutMilliseconds, &error)
        else { throw Self.failure(&error) }
        return DBusMessage(adopting: reply)
    }

    /// Queues `message` for sending; returns its serial (for matching the reply), `nil` when out of memory.
    func send(_ message: DBusMessage) -> UInt32? {
        var serial: UInt32 = 0
        guard dbus_connection_send(raw, message.raw, &serial) != 0 else { return nil }
        return serial
    }

    /// Reads what the socket has and writes what is queued, without waiting.
    func readWrite() {
        _ = dbus_connection_read_write(raw, 0)
    }

    /// Hands every complete incoming message to the filter.
    func dispatchAll() {
        while dispatchOne() {}
    }

    /// Hands the oldest complete incoming message (if any) to the filter; `true` when more remain.
    func dispatchOne() -> Bool {
        dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS
    }

    /// Bytes of messages queued for sending.
    var outgoingSize: Int { dbus_connection_get_outgoing_size(raw) }

    /// Bounds what libdbus reads ahead: it stops reading the socket while the messages it has received and not yet
    /// freed (queued, or kept by the filter) total `bytes`.
    func limitReceived(bytes: Int) {
        dbus_connection_set_max_received_size(raw, bytes)
    }

    /// Writes everything queued, waiting for the socket as long as it takes (at shutdown, on the bus thread).
    func flush() {
        dbus_connection_flush(raw)
    }

    /// What the bus answered to `RequestName`.
    enum NameRequest {
        /// The connection owns the name now (or already did).
        case owner
        /// Another connection owns it; this one is in its queue and gets `NameAcquired` when the name is its.
        case queued
    }

    /// Asks the bus for `name` (queueing behind its owner, not replacing it) and waits for the answer.
    /// - Throws: the bus's refusal (the policy does not allow this user to own the name), or a lost connection.
    func requestName(_ name: String) throws(DBusFailure) -> NameRequest {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let answer = dbus_bus_request_name(raw, name, 0, &error)
        if dbus_error_is_set(&error) != 0 { throw Self.failure(&error) }
        switch answer {
        case Int32(DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER), Int32(DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER): return .owner
        case Int32(DBUS_REQUEST_NAME_REPLY_IN_QUEUE): return .queued
        default:
            throw DBusFailure(
                name: "org.freedesktop.DBus.Error.Failed", message: "RequestName answered \(answer) for \(name)")
        }
    }
}
