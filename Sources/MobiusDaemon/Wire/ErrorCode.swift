import MobiusJSON

/// The error codes of docs/protocol.md section 1.3.
enum ErrorCode: String, Sendable {
    case invalidJSON = "InvalidJSON"
    case invalidEncoding = "InvalidEncoding"
    case invalidEvent = "InvalidEvent"
    case lineTooLong = "LineTooLong"
    case unknownCommand = "UnknownCommand"
    case invalidArgument = "InvalidArgument"
    case permissionDenied = "PermissionDenied"
    case overloaded = "Overloaded"
    case storageFailure = "StorageFailure"
    case journalDamaged = "JournalDamaged"
    case shuttingDown = "ShuttingDown"
    case unavailable = "Unavailable"
    case pluginCrashed = "PluginCrashed"
    case `internal` = "Internal"
}
