package dev.wharf.store;

/** The store could not do what it was asked (I/O, database gone). Nothing was changed. */
public class StoreException extends RuntimeException {
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StoreException(String message) {
    super(message);
  }

  /**
   * The first line of a message, for an answer or a readiness detail: a database's error may go
   * on for lines (PostgreSQL adds the position in its statement), which are for the server's log.
   */
  public static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int end = message.indexOf('\n');
    return (end < 0 ? message : message.substring(0, end)).strip();
  }
}
