// mobiusctl: the command-line client of mobiusd's control socket (PROTOCOL.md sections 1 and 6).
// It links MobiusJSON only, never the daemon kit.

let invocation: Invocation
do {
    invocation = try Invocation.parse(
        Array(CommandLine.arguments.dropFirst()), environment: Syscall.environment(), userID: Syscall.userID)
} catch {
    let console = Console(mode: .json)
    console.error(error.message)
    console.note("usage: " + HelpText.usage(error.command))
    Syscall.exit(ExitStatus.usage)
}

let console = Console(mode: invocation.output)
switch invocation.action {
case .version:
    console.out("mobiusctl \(HelpText.version)")
    Syscall.exit(ExitStatus.success)
case .help(nil):
    console.out(HelpText.tool)
    Syscall.exit(ExitStatus.success)
case .help(let name?):
    guard let text = HelpText.command(name) else {
        console.error("unknown command \"\(name)\"")
        console.note("usage: " + HelpText.usage(nil))
        Syscall.exit(ExitStatus.usage)
    }
    console.out(text)
    Syscall.exit(ExitStatus.success)
case .run(let command):
    Syscall.exit(ControlClient(command: command, socketPath: invocation.socketPath, console: console).run())
}
