// libsystemd's sd-daemon (notify, watchdog, socket activation) and sd-journal (structured log records).
// Only MobiusDaemon/Systemd imports this module. The variadic calls (sd_notifyf, sd_journal_print/send) do not import
// into Swift; the daemon uses sd_notify and sd_journal_sendv.
#ifndef MOBIUSD_CSYSTEMD_SHIM_H
#define MOBIUSD_CSYSTEMD_SHIM_H

#include <stdlib.h>
#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

static const int MOBIUSD_SD_LISTEN_FDS_START = SD_LISTEN_FDS_START;

// sd_listen_fds_with_names hands back a NULL-terminated array of malloc'd names.
static inline void mobiusd_free_names(char **names) {
    if (!names) return;
    for (char **name = names; *name; name++) free(*name);
    free(names);
}

#endif
