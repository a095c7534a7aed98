package dev.wharf.store;

/** The store could not do what it was asked (I/O, database gone). Nothing was changed. */
public class StoreException extends RuntimeException {
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StoreException(String message) {
    super(message);
  }
}
