import MobiusSystem

@testable import MobiusDaemon

/// What storage, a crash or a careless operator does to a state directory, as a fuzz input plans it: bit flips,
/// truncation, inserted bytes, zeroed ranges, junk in a segment's zero-filled room or after its end, deleted and
/// renamed files, a snapshot of another history, a leftover `snapshot.tmp`.
enum JournalDamage {
    /// Applies up to eight changes to the segment and snapshot files of `directory`; `committed` gives each
    /// segment's committed length, where its zero-filled room starts.
    static func apply(_ input: inout FuzzInput, to directory: String, committed: [String: Int64]) {
        for _ in 0..<input.int(0...8) {
            let files = stateFiles(directory)
            guard !files.isEmpty else { return }
            let path = directory + "/" + files[input.int(0...(files.count - 1))]
            let bytes = (try? FileSystem.read(path)) ?? []
            let offset = input.int(0...max(bytes.count, 1) - 1)
            switch input.int(0...9) {
            case 0:
                guard !bytes.isEmpty else { continue }
                var changed = bytes
                changed[offset] ^= 1 << UInt8(input.int(0...7))
                replace(path, with: changed)
            case 1:
                replace(path, with: Array(bytes.prefix(offset)))
            case 2:
                var changed = bytes
                changed.insert(contentsOf: input.bytes(upTo: 32), at: min(offset, bytes.count))
                replace(path, with: changed)
            case 3:
                var changed = bytes
                let end = min(bytes.count, offset + input.int(1...64))
                if offset < end { changed.replaceSubrange(offset..<end, with: repeatElement(0, count: end - offset)) }
                replace(path, with: changed)
            case 4:
                // Junk in the zero-filled room the writer kept ahead of its records.
                let room = Int(committed[path] ?? Int64(bytes.count))
                guard room < bytes.count else { continue }
                var changed = bytes
                let at = input.int(room...(bytes.count - 1))
                let junk = input.bytes(upTo: 16)
                changed.replaceSubrange(at..<min(bytes.count, at + junk.count), with: junk.prefix(bytes.count - at))
                replace(path, with: changed)
            case 5:
                replace(path, with: bytes + input.bytes(upTo: 64))
            case 6:
                try? FileSystem.remove(path)
            case 7:
                rename(path, in: directory, &input)
            case 8:
                let seq = UInt64(input.int(0...200))
                _ = try? SnapshotFile(epoch: "fedcba9876543210", seq: seq, time: 0, model: 0).write(into: directory)
            default:
                replace(directory + "/" + SnapshotFile.temporaryName, with: input.bytes(upTo: 32))
            }
        }
    }

    /// The journal's segments and snapshots, in name order.
    static func stateFiles(_ directory: String) -> [String] {
        ((try? DirectoryListing.names(in: directory)) ?? []).filter {
            JournalSegment.firstSeq(ofName: $0) != nil || SnapshotFile.seq(ofName: $0) != nil
        }.sorted()
    }

    /// Renames a segment or snapshot to the name of a nearby seq (replacing a file of that name, if any).
    private static func rename(_ path: String, in directory: String, _ input: inout FuzzInput) {
        let name = String(path.dropFirst(directory.count + 1))
        let delta = input.int(-4...4)
        if let first = JournalSegment.firstSeq(ofName: name) {
            let seq = UInt64(max(1, Int(first) + delta))
            try? FileSystem.rename(path, to: directory + "/" + JournalSegment.name(firstSeq: seq))
        } else if let seq = SnapshotFile.seq(ofName: name) {
            let other = UInt64(max(0, Int(seq) + delta))
            try? FileSystem.rename(path, to: directory + "/" + SnapshotFile.name(seq: other))
        }
    }

    static func replace(_ path: String, with bytes: [UInt8]) {
        do {
            let fd = try FileDescriptor.openFile(path, .readWriteCreating(mode: 0o600))
            defer { fd.close() }
            try fd.truncate(to: 0)
            try fd.writeAll(bytes, at: 0)
        } catch {
            fatalError("cannot rewrite \(path): \(error)")
        }
    }
}
