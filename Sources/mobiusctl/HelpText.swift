/// `mobiusctl --help`, each command's help, and the short usage lines shown with usage errors.
enum HelpText {
    static let version = "0.1.0"

    static let tool = """
        Usage: mobiusctl [--socket PATH | --app NAME] [--json | --human] COMMAND [OPTIONS]

        Talks to a running mobiusd over its control socket.

        Commands:
          send JSON               send one event; prints its seq
          model [--path PTR] [--at N]
                                  print the model, or the value at a JSON Pointer; with --at, as it was
                                  right after seq N
          watch [--path PTR]      print the model and each change until the daemon stops or Ctrl-C
          status                  print the daemon's counters
          monitor                 print a live trace of events, models and effects until Ctrl-C
          log [--since N] [--follow] [--limit K] [--models]
                                  print the journaled events after seq N (with --models, each one's model)
          hello                   print the daemon's name, version, app and seq
          ping                    wait until the daemon has handled everything before; print its seq
          reload [--timeout S]    make the daemon read its config again and wait (up to S s, 90) for the outcome
          plugin restart NAME     start plugin NAME again, a failed one too
          metrics [--format F] [--output FILE]
                                  print the counters and latencies (F: openmetrics, the default, or prometheus),
                                  or write them to FILE in one step
          top                     show events/s, ack latency, queues, plugins, journal, refreshed each second
          help [COMMAND]          print this help, or a command's (also: mobiusctl COMMAND --help)

        Options (before or after the command):
          --socket PATH   the daemon's socket; default: $MOBIUSD_SOCKET, else
                          $XDG_RUNTIME_DIR/mobiusd/counter.sock, else /tmp/mobiusd-UID/counter.sock
          --app NAME      the socket of app NAME, where mobiusd puts it: the first of
                          $XDG_RUNTIME_DIR/mobiusd/NAME.sock, /tmp/mobiusd-UID/NAME.sock and
                          /run/mobiusd/NAME.sock (the systemd units') that exists
          --json          print the daemon's JSON lines as they arrive (default when stdout is not a terminal)
          --human         print readable text even when stdout is not a terminal
          -h, --help      print help
          --version       print mobiusctl's version

        Exit status: 0 ok; 1 the daemon answered with an error (for reload: the config was refused);
        2 usage error or invalid JSON; 3 the daemon could not be reached, closed the connection before answering,
        or did not answer reload within its timeout (90 s unless --timeout says), or went away during top;
        4 metrics --output could not write its file.
        """

    /// Help for one command, or `nil` when there is no such command.
    static func command(_ name: String) -> String? {
        switch name {
        case "send":
            return """
                Usage: \(usage("send"))

                Sends one event (any JSON value) to the loop and prints the seq it was applied as.
                The JSON is checked here first; invalid JSON exits 2 without connecting.
                Example: mobiusctl send '{"type":"increment"}'   prints   ok, seq 5
                """
        case "model":
            return """
                Usage: \(usage("model"))

                Prints the current model (indented JSON) after a "seq N" line.
                  --path PTR   only the value at this JSON Pointer (e.g. /items/0); null when absent
                  --at N       the model as it was right after seq N: the daemon replays its journal from the
                               newest snapshot at or before N. A seq no longer kept, in the future or in a
                               damaged part of the journal is an error that says which (exit 1).
                               A replay longer than a second shows its progress on stderr when that
                               is a terminal.
                """
        case "watch":
            return """
                Usage: \(usage("watch"))

                Subscribes: prints "seq N: MODEL" for the current model, then one line per change. Slow
                readers skip to the newest model. Runs until the daemon ends the stream (exit 0) or Ctrl-C
                (exit 0).
                  --path PTR   only the value at this JSON Pointer, and only when it changes
                """
        case "status":
            return """
                Usage: \(usage("status"))

                Prints the daemon's status as aligned "key  value" rows (nested keys joined with dots):
                app, seq, epoch, uptime, connections, subscribers, events.accepted, events.rejected, ...
                """
        case "monitor":
            return """
                Usage: \(usage("monitor"))

                Prints one line per trace item (event, model, effect, plugin, dbus) as it happens, until the
                daemon stops (exit 0) or Ctrl-C (exit 0).
                """
        case "log":
            return """
                Usage: \(usage("log"))

                Prints "seq N  TIME  EVENT" for each journaled event after seq N (default 0), then ends.
                  --since N    start after seq N
                  --follow     keep printing new events until --limit is reached or Ctrl-C (exit 0)
                  --limit K    stop after K events
                  --models     each line also shows the model right after its event ("model M")
                The daemon answers Unavailable when it keeps no history; mobiusctl then exits 1.
                """
        case "hello":
            return """
                Usage: \(usage("hello"))

                Prints the daemon's protocol, name, version, app, epoch and seq.
                """
        case "ping":
            return """
                Usage: \(usage("ping"))

                Waits until the daemon has handled every earlier request on the connection and prints
                "ok, seq N" (the last applied event).
                """
        case "reload":
            return """
                Usage: \(usage("reload"))

                Asks the daemon to read its config file again and apply it, as SIGHUP does, and waits for the
                outcome: prints "reloaded: PARTS" and, for keys that take effect only at the next start,
                "needs a restart to take effect: KEYS"; exit 0. A config the daemon refuses changes
                nothing: the reason, which names the key, goes to stderr and the exit status is 1. The systemd
                units run it as ExecReload=, so `systemctl reload` waits for it and fails with it.
                  --timeout S  wait at most S seconds (1 to 86400; default 90), then exit 3
                """
        case "plugin":
            return """
                Usage: \(usage("plugin"))

                Restarts plugin NAME now, as after a crash but without waiting for its backoff, and prints
                "plugin NAME: STATE". A failed plugin (its restart budget spent) starts again with a fresh
                budget. An unknown NAME exits 1.
                """
        case "metrics":
            return """
                Usage: \(usage("metrics"))

                Prints the daemon's counters and latency histograms as text ending in "# EOF": events
                accepted and rejected, pass, commit and fdatasync latencies, queues, plugins, journal, RSS.
                  --format F     openmetrics (the default: OpenMetrics 1.0) or prometheus (the text format
                                 node_exporter's textfile collector and promtool read)
                  --output FILE  write the text to FILE instead, in one step (a temporary FILE.tmp beside it,
                                 synced, renamed over FILE), as a textfile collector wants; exit 4 if it cannot
                """
        case "top":
            return """
                Usage: \(usage("top"))

                Shows the app and seq, events/s, ack latency p50/p99 (of the loop's passes), queue depth,
                subscribers, journal size, snapshot age and each plugin's state, in flight, handled,
                failed and restarts, refreshed each second. q quits (Ctrl-C too); exit 0. When stdout is
                not a terminal it prints one line per second until Ctrl-C or SIGTERM. If the daemon goes
                away it says so on stderr and exits 3.
                """
        case "help":
            return """
                Usage: \(usage("help"))

                Prints mobiusctl's help, or a command's.
                """
        default:
            return nil
        }
    }

    /// The one-line usage of `command`, or of the tool when `nil`.
    static func usage(_ command: String?) -> String {
        let prefix = "mobiusctl [--socket PATH | --app NAME] [--json | --human]"
        switch command {
        case "send": return "\(prefix) send JSON"
        case "model": return "\(prefix) model [--path PTR] [--at N]"
        case "watch": return "\(prefix) watch [--path PTR]"
        case "log": return "\(prefix) log [--since N] [--follow] [--limit K] [--models]"
        case "reload": return "\(prefix) reload [--timeout SECONDS]"
        case "plugin": return "\(prefix) plugin restart NAME"
        case "metrics": return "\(prefix) metrics [--format openmetrics|prometheus] [--output FILE]"
        case "help": return "mobiusctl help [COMMAND]"
        case let name? where Command.names.contains(name): return "\(prefix) \(name)"
        default: return "\(prefix) COMMAND [OPTIONS]  (mobiusctl --help lists the commands)"
        }
    }
}
