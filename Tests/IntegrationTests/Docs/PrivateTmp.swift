import MobiusSystem
import Testing

/// Runs a bash script in mount, PID and network namespaces of its own (unshare, as root) with a fresh tmpfs on
/// /tmp, so the fixed paths the docs use (`/tmp/counter.sock`, `/tmp/mobiusd-UID/…`) meet no other test's and
/// everything the script starts, daemons that fork included, ends with it.
///
/// The directories the script needs that live under the real /tmp (a checkout cloned there, as CI may do, and its
/// build) would be hidden by the new tmpfs: each is opened before the mount and bind-mounted back at its own path
/// through that descriptor (`/proc/self/fd/N`, not canonicalized, so the kernel takes the hidden directory itself).
/// Nothing else of the real /tmp is visible. The mounts are `--no-mtab`: mount would otherwise create /run/mount on
/// the host to keep notes about them.
enum PrivateTmp {
    /// The directories every documentation script needs: the package (its docs, examples and `.build`) and the
    /// directory of the built binaries (elsewhere when the build has its own scratch path).
    static var packageDirectories: [String] { [DocCatalog.packageDirectory, DaemonSpawn.buildDirectory] }

    /// Runs `script` with `directories` visible at their own paths; fails the test (throws) after `timeout`, when
    /// the namespace and all it started are killed.
    static func run(
        _ script: String, keeping directories: [String] = packageDirectories, timeout: Duration = .seconds(120)
    ) throws -> DaemonToolRun {
        let unshare = try #require(DaemonSpawn.which("unshare"))
        let path = "\(DaemonSpawn.buildDirectory):\(SystemProcess.environment("PATH") ?? "/usr/bin:/bin")"
        return try DaemonToolRun.run(
            unshare,
            [
                "--mount", "--pid", "--net", "--fork", "--kill-child", "--mount-proc", "--propagation", "private",
                "--", "/bin/bash", "-c", setup, "doccheck", script,
            ] + directories,
            environment: ["PATH": path, "LANG": "C.UTF-8"], timeout: timeout)
    }

    /// `$1` is the script, the other arguments the directories to keep. A directory inside one already kept is
    /// kept with it; one that does not exist is left out.
    private static let setup = #"""
        set -eu
        script=$1
        shift
        kept=()
        for directory in "$@"; do
            real=$(realpath -e -- "$directory" 2>/dev/null) || continue
            case $real in /tmp/*) ;; *) continue ;; esac
            for other in "${kept[@]}"; do
                case $real/ in "$other"/*) continue 2 ;; esac
            done
            kept+=("$real")
        done
        fds=()
        for directory in "${kept[@]}"; do
            exec {fd}<"$directory"
            fds+=("$fd")
        done
        mount --no-mtab -t tmpfs -o mode=1777 tmpfs /tmp
        for i in "${!kept[@]}"; do
            mkdir -p -- "${kept[$i]}"
            mount --no-mtab --no-canonicalize --bind "/proc/self/fd/${fds[$i]}" "${kept[$i]}"
            fd=${fds[$i]}
            exec {fd}<&-
        done
        exec /bin/bash -c "$script"
        """#
}
