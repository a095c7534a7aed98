package dev.wharf.http.server;

/** The connection closed before an answer could be written. */
public final class ClientGone extends RuntimeException {
  public ClientGone(String message, Throwable cause) {
    super(message, cause, false, false);
  }
}
