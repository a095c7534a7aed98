package dev.wharf.app;

/** Wharf could not start; the message says why in words meant for the operator. */
public final class StartupException extends RuntimeException {
  public StartupException(String message, Throwable cause) {
    super(message, cause);
  }
}
