package dev.wharf.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock tests move by hand, so leases, delays and TTLs are tested without sleeping. */
public final class MutableClock implements InstantSource {
  private volatile Instant now;

  public MutableClock(Instant start) {
    this.now = start;
  }

  public static MutableClock atEpochDay() {
    return new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  }

  @Override
  public Instant instant() {
    return now;
  }

  public synchronized Instant advance(Duration d) {
    now = now.plus(d);
    return now;
  }
}
