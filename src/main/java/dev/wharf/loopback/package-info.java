/**
 * A minimal HTTP/1.1 client for a server on this machine, shared by the benchmark harness, the
 * crash tests and the start-up training that records {@code bin/wharf}'s class-data archive. It
 * lives apart from {@code bench} so that the CLI's training does not depend on the harness, and
 * apart from {@code cli.WharfClient}, the operator's client on the JDK's HTTP client (connect and
 * request timeouts, any host), whose classes a server's archive should not hold.
 */
package dev.wharf.loopback;
