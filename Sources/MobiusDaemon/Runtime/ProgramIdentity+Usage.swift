extension ProgramIdentity {
    /// `--help`: the usage line and options under the program's name, what it does, and how to talk to it with the
    /// program's own example event and default socket.
    var usage: String {
        let example = exampleEvent.map { String(decoding: $0.encoded(), as: UTF8.self) } ?? "EVENT"
        // mobiusctl's own default socket is the default app's, so only mobiusd can leave --socket out.
        let watch = isKit ? "mobiusctl watch" : "mobiusctl --socket SOCKET watch"
        let socket = DaemonSetup<Never, Never, Never>.defaultSocketPath(app: appName)
        return """
            Usage: \(name) [--config FILE] [options]
                   \(name) replay --state-dir DIR [--config FILE] [--current FILE] [replay options]

            \(summary)

            Options:
              --config FILE      \(configHelp)
              --socket PATH      listen on PATH instead of the configured or default socket
              --state-dir DIR    keep state in DIR
              --ephemeral        keep nothing on disk
              --log-level LEVEL  error, warning, notice, info (default) or debug
              --check            validate the configuration (and that plugin executables exist), then exit 0 or 1
              --version          print the version and exit
              --help             print this help and exit

            Commands:
              replay             run a changed update over the journal of DIR beside the daemon's and report where
                                 they part (\(name) replay --help)

            Talk to it:  echo '\(example)' | socat - UNIX-CONNECT:SOCKET
                         \(watch)
            SOCKET is \(socket) unless --socket or the config says otherwise.
            """
    }
}
