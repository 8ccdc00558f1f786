/// Why a command's argument was refused.
struct ArgumentProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
