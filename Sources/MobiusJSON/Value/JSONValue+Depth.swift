extension JSONValue {
    /// Whether arrays and objects nest more than `limit` levels deep (a scalar is 0 levels, `[]` and `{}` are 1).
    ///
    /// Walks with an explicit stack rather than recursion, so it is safe on any value, and stops at the first
    /// branch past the limit.
    public func nests(deeperThan limit: Int) -> Bool {
        var pending: [(value: JSONValue, depth: Int)] = [(self, 0)]
        while let (value, depth) = pending.popLast() {
            switch value {
            case .array(let elements):
                guard depth < limit else { return true }
                for element in elements where element.isContainer { pending.append((element, depth + 1)) }
            case .object(let object):
                guard depth < limit else { return true }
                for (_, member) in object.members where member.isContainer { pending.append((member, depth + 1)) }
            default:
                continue
            }
        }
        return false
    }

    /// How many levels arrays and objects nest in this value (a scalar is 0, `[]` is 1, `[[1]]` is 2). Iterative.
    public var nestingDepth: Int {
        var deepest = 0
        var pending: [(value: JSONValue, depth: Int)] = [(self, 0)]
        while let (value, depth) = pending.popLast() {
            switch value {
            case .array(let elements):
                deepest = max(deepest, depth + 1)
                for element in elements where element.isContainer { pending.append((element, depth + 1)) }
            case .object(let object):
                deepest = max(deepest, depth + 1)
                for (_, member) in object.members where member.isContainer { pending.append((member, depth + 1)) }
            default:
                continue
            }
        }
        return deepest
    }

    /// Whether this is an array or an object.
    public var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }
}
