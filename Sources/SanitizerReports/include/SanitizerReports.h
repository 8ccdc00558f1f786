// SanitizerReports exports nothing to Swift: linking it gives the sanitizer runtimes their default options.
