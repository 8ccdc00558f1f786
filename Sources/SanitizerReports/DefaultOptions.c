// The options AddressSanitizer (with LeakSanitizer) and ThreadSanitizer start with in the sanitizer builds, which
// link this into every binary (the ASan and TSan traits; docs/reliability.md, "Sanitizers"). Each report goes to a
// file `.build/sanitizer-reports/TOOL.PROGRAM.PID` of this checkout whatever the process's environment (plugins and
// some test children get a fixed one), so that make sanitize fails on a report from any process; without that
// directory, reports go to stderr as usual. ASAN_OPTIONS and TSAN_OPTIONS apply on top.
#include <unistd.h>

// The runtimes call these while they start, before instrumented code may run.
#define NOT_SANITIZED __attribute__((no_sanitize("address", "thread"), disable_sanitizer_instrumentation))

static char options[4096];
static int length;

// Appends up to `count` bytes of `text` (less at its NUL) to `options`, as far as they fit.
NOT_SANITIZED static void append(const char *text, int count) {
    for (int i = 0; i < count && text[i] && length < (int)sizeof(options) - 1; i++) options[length++] = text[i];
    options[length] = 0;
}

NOT_SANITIZED static const char *optionsFor(const char *tool, const char *extra) {
    // This file is <checkout>/Sources/SanitizerReports/DefaultOptions.c.
    static const char source[] = __FILE__;
    int checkout = (int)sizeof(source) - 1;
    for (int slashes = 0; checkout > 0 && slashes < 3;) {
        if (source[--checkout] == '/') slashes++;
    }
    length = 0;
    append("log_path=", 9);
    int directory = length;
    append(source, checkout);
    append("/.build/sanitizer-reports", 25);
    if (access(options + directory, W_OK) == 0) {
        append("/", 1);
        append(tool, 8);
        append(" log_exe_name=1 ", 16);
    } else {
        length = 0;
    }
    append(extra, (int)sizeof(options));
    return options;
}

__attribute__((used, visibility("default"))) NOT_SANITIZED const char *__asan_default_options(void) {
    return optionsFor("asan", "");
}

__attribute__((used, visibility("default"))) NOT_SANITIZED const char *__tsan_default_options(void) {
    return optionsFor("tsan", "second_deadlock_stack=1");
}

// LeakSanitizer's suppressions, each for one reason (docs/reliability.md, "Sanitizers").
__attribute__((used, visibility("default"))) NOT_SANITIZED const char *__lsan_default_suppressions(void) {
    return
        // swift test starts the test bundle's XCTest runner first (the package has no XCTest tests), which leaves
        // its empty suite objects in a reference cycle.
        "leak:libXCTest.so\n"
        // An object's weak-reference side table is reached through a shifted pointer in the object's header, which
        // LeakSanitizer cannot follow; the table is freed with its object.
        "leak:formWeakReference\n"
        // An indirect enum's value is a pointer to its box with the case in the pointer's spare bits, which
        // LeakSanitizer does not take for a pointer: every box of a case but the first looks leaked. The loop's
        // phase holds one while a pass waits for its commit (a daemon stopped then), built in LoopPhase's init.
        "leak:DBusArgument\n"
        "leak:DBusType\n"
        "leak:LoopPhase\n";
}
