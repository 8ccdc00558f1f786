// mobiusctl: the command-line client of mobiusd's control socket (docs/protocol.md sections 1 and 6).
// It links MobiusJSON and MobiusSystem only, never the daemon kit.

import MobiusSystem

let invocation: Invocation
do {
    invocation = try Invocation.parse(
        Array(CommandLine.arguments.dropFirst()), environment: SystemProcess.environmentVariables(),
        userID: SystemProcess.userID, isSocket: { (try? FileSystem.status($0, followingLinks: true))??.kind == .socket }
    )
} catch {
    let console = Console(mode: .json)
    console.error(error.message)
    console.note("usage: " + HelpText.usage(error.command))
    SystemProcess.exit(ExitStatus.usage)
}

let console = Console(mode: invocation.output)
switch invocation.action {
case .version:
    console.out("mobiusctl \(HelpText.version)")
    SystemProcess.exit(ExitStatus.success)
case .help(nil):
    console.out(HelpText.tool)
    SystemProcess.exit(ExitStatus.success)
case .help(let name?):
    guard let text = HelpText.command(name) else {
        console.error("unknown command \"\(name)\"")
        console.note("usage: " + HelpText.usage(nil))
        SystemProcess.exit(ExitStatus.usage)
    }
    console.out(text)
    SystemProcess.exit(ExitStatus.success)
case .run(let command):
    SystemProcess.exit(ControlClient(command: command, socket: invocation.socket, console: console).run())
}
