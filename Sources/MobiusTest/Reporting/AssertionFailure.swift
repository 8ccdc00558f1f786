import Testing
import XCTest

/// Receives a failed assertion: the message, and the file and line the failure is attributed to.
///
/// Every assertion in MobiusTest takes one as `failFunction`; inject your own to observe failures in tests.
public typealias AssertionFailure = (String, StaticString, UInt) -> Void

/// The default `AssertionFailure`: records an issue in the running test, whichever framework runs it.
///
/// Under Swift Testing (a test is current on this task) the failure becomes an `Issue` at `file`:`line`;
/// otherwise it goes to `XCTFail`, which reports to the running `XCTestCase`.
public func failTest(_ message: String, file: StaticString, line: UInt) {
    if Test.current != nil {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation(file: file, line: line))
    } else {
        XCTFail(message, file: file, line: line)
    }
}

/// Swift Testing requires a file ID of the form `Module/File.swift`; `#file` is one in Swift 6 mode, but a caller
/// passing a bare name would trap, so such names get a stand-in module name.
private func sourceLocation(file: StaticString, line: UInt) -> SourceLocation {
    let path = "\(file)"
    let fileID = path.contains("/") ? path : "Unknown/\(path)"
    return SourceLocation(fileID: fileID, filePath: path, line: max(Int(line), 1), column: 1)
}
