import MobiusJSON
import MobiusSystem

/// A model snapshot on disk (`<seq, 20 digits>.snapshot`): 8 bytes `MOBIUSS1`, the body's length and CRC-32C
/// (little-endian UInt32 each), then the body: a JSON line `{"epoch":E,"seq":N,"time":T}` and the model's JSON.
/// Written to a temporary file, synced, renamed into place and the directory synced, so a snapshot file is either
/// whole or absent.
struct SnapshotFile {
    let epoch: String
    /// The seq of the last event the model includes.
    let seq: UInt64
    /// Nanoseconds since 1970 when it was taken.
    let time: Int64
    let model: JSONValue

    static let magic: [UInt8] = Array("MOBIUSS1".utf8)
    static let suffix = ".snapshot"
    /// Where a snapshot is written before it is renamed into place.
    static let temporaryName = "snapshot.tmp"

    static func name(seq: UInt64) -> String {
        StateFileName.numbered(seq) + suffix
    }

    static func seq(ofName name: String) -> UInt64? {
        StateFileName.number(in: name, suffix: suffix)
    }

    /// The file's bytes.
    func encoded() -> [UInt8] {
        var body = JSONValue.object(
            JSONObject([
                ("epoch", .string(epoch)), ("seq", .number(JSONNumber(seq))), ("time", .number(JSONNumber(time))),
            ])
        ).encoded()
        body.append(UInt8(ascii: "\n"))
        model.encode(into: &body)
        var bytes = Self.magic
        JournalRecord.appendInteger(UInt32(truncatingIfNeeded: body.count), to: &bytes)
        JournalRecord.appendInteger(CRC32C.checksum(body), to: &bytes)
        bytes.append(contentsOf: body)
        return bytes
    }

    /// Why a snapshot file cannot be used.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses a snapshot file's bytes.
    static func decode(_ bytes: [UInt8]) throws(Problem) -> SnapshotFile {
        guard bytes.count >= 16, bytes.prefix(8).elementsEqual(magic) else {
            throw Problem(description: "it does not start with a snapshot header")
        }
        let (length, stored) = bytes.withUnsafeBytes { raw in
            (
                Int(raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian),
                raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self).littleEndian
            )
        }
        guard bytes.count == 16 + length else {
            throw Problem(description: "it has \(bytes.count - 16) bytes of body where its header says \(length)")
        }
        let body = bytes[16...]
        guard body.withUnsafeBytes({ CRC32C.checksum($0) }) == stored else {
            throw Problem(description: "its checksum does not match")
        }
        guard let newline = body.firstIndex(of: UInt8(ascii: "\n")),
            case .object(let header)? = try? JSONWire.parse(body[..<newline]),
            case .string(let epoch)? = header["epoch"], let seq = header["seq"]?.int64Value, seq >= 0,
            let time = header["time"]?.int64Value
        else {
            throw Problem(description: "its header line is not {\"epoch\",\"seq\",\"time\"}")
        }
        let model: JSONValue
        do {
            model = try JSONWire.parse(body[(newline + 1)...])
        } catch {
            throw Problem(description: "its model is not valid JSON: \(error)")
        }
        return SnapshotFile(epoch: epoch, seq: UInt64(seq), time: time, model: model)
    }

    /// Reads the snapshot of `seq` in `directory` and checks it: whole, the seq its name says, and of `epoch` (for
    /// past models and `replay`, which start from a snapshot the recovery of the moment did not check).
    ///
    /// - Throws: `Problem` naming the file: it cannot be read, is damaged, or holds another seq or epoch.
    static func read(seq: UInt64, in directory: String, epoch: String) throws(Problem) -> SnapshotFile {
        let path = directory + "/" + name(seq: seq)
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path)
        } catch {
            throw Problem(description: "cannot read the snapshot \(path): \(error)")
        }
        let snapshot: SnapshotFile
        do {
            snapshot = try decode(bytes)
        } catch {
            throw Problem(description: "the snapshot \(path) is damaged: \(error)")
        }
        guard snapshot.seq == seq else {
            throw Problem(description: "the snapshot \(path) holds seq \(snapshot.seq), not the \(seq) of its name")
        }
        guard snapshot.epoch == epoch else {
            throw Problem(
                description: "the snapshot \(path) belongs to epoch \(snapshot.epoch), not to the state directory's "
                    + "\(epoch)")
        }
        return snapshot
    }

    /// Writes the snapshot durably into `directory`: temporary file, fsync, rename, directory fsync. Returns the
    /// file's path.
    func write(into directory: String) throws(SystemError) -> String {
        let temporary = directory + "/" + Self.temporaryName
        try FileSystem.remove(temporary)
        let fd = try FileDescriptor.openFile(temporary, .createNew(mode: 0o600))
        do {
            let bytes = encoded()
            try fd.writeAll(bytes, at: 0)
            try fd.synchronize()
            fd.close()
        } catch {
            fd.close()
            try? FileSystem.remove(temporary)
            throw error
        }
        let path = directory + "/" + Self.name(seq: seq)
        try FileSystem.rename(temporary, to: path)
        try FileSystem.synchronizeDirectory(directory)
        return path
    }
}
