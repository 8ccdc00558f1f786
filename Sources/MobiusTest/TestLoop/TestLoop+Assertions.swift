import MobiusCore

extension TestLoop where Effect: Equatable {
    /// Asserts that the effects dispatched since the last effect assertion are `expected`, in order, and consumes
    /// them (all of them, also on failure, so one mistake is reported once). Applies events that already arrived
    /// first; it does not wait for more.
    public func assertEffects(_ expected: [Effect], file: StaticString = #file, line: UInt = #line) {
        applyArrivedEvents()
        let actual = dispatchedEffects
        skipEffects()
        assertList(actual, equals: expected, "assertEffects", "effects", file, line)
    }
}

extension TestLoop where Event: Equatable {
    /// Asserts that the events received from the effect handlers since the last event assertion are `expected`,
    /// in order, and consumes them (all of them, also on failure). Applies events that already arrived first; it
    /// does not wait for more, so call `exhaust()` before it when handlers run asynchronously.
    public func assertReceived(_ expected: [Event], file: StaticString = #file, line: UInt = #line) {
        applyArrivedEvents()
        let actual = receivedEvents
        skipReceivedEvents()
        assertList(actual, equals: expected, "assertReceived", "events", file, line)
    }
}

extension TestLoop {
    /// Fails `assertion` with a line diff when `actual` is not `expected`.
    fileprivate func assertList<Element: Equatable>(
        _ actual: [Element], equals expected: [Element], _ assertion: String, _ what: String, _ file: StaticString,
        _ line: UInt
    ) {
        guard actual != expected else { return }
        let diff = LineDiff(expected: expected, actual: actual).rendered
        failFunction("TestLoop.\(assertion) failed: \(what) differ\n(- expected, + actual)\n\(diff)", file, line)
    }

    /// Marks every dispatched effect as asserted without checking it: an explicit opt-out of exhaustiveness.
    public func skipEffects() {
        dispatchedEffects.removeAll()
    }

    /// Marks every received event as asserted without checking it: an explicit opt-out of exhaustiveness.
    public func skipReceivedEvents() {
        applyArrivedEvents()
        receivedEvents.removeAll()
    }
}
