package dev.wharf.bench;

/**
 * The knobs of a run, shared by all scenarios.
 *
 * @param rate publishes per second for the latency scenario; 0 = half the measured peak
 * @param serverPid the server's process id for RSS; 0 = look it up from the port
 */
record Options(
    double seconds,
    double warmup,
    int clients,
    int batch,
    int publishers,
    int consumers,
    double rate,
    int polls,
    long serverPid,
    long backlog) {}
