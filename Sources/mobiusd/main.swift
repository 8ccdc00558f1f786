// mobiusd: the loop daemon. The built-in apps and the daemon kit live in MobiusDaemon.
import MobiusDaemon

MobiusDaemon.mainWithBuiltinApps()
