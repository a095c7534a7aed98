package dev.wharf.core;

/**
 * The closed set of ways a core command can fail. Each dialect maps these to its own wire errors
 * in one place.
 */
public abstract sealed class BrokerException extends RuntimeException {

  BrokerException(String detail) {
    super(detail, null, false, false);
  }

  /** A value the caller sent is out of range or malformed. */
  public static final class Invalid extends BrokerException {
    private final int item;

    public Invalid(String detail) {
      this(detail, -1);
    }

    private Invalid(String detail, int item) {
      super(detail);
      this.item = item;
    }

    /**
     * Which item of a command that takes many (a publish's messages) the value belongs to,
     * counted from 0, or -1: a dialect names it as its wire form names the item, the detail
     * naming only the field.
     */
    public int item() {
      return item;
    }

    /** This failure, as that of the item at {@code index}. */
    Invalid ofItem(int index) {
      return new Invalid(getMessage(), index);
    }
  }

  public static final class QueueNotFound extends BrokerException {
    private final String queue;

    public QueueNotFound(String queue) {
      super("queue \"" + queue + "\" does not exist");
      this.queue = queue;
    }

    public String queue() {
      return queue;
    }
  }

  public static final class MessageNotFound extends BrokerException {
    public MessageNotFound(String queue, String id) {
      super("message \"" + id + "\" is not in queue \"" + queue + "\"");
    }
  }

  /** Too many consumers are parked in long-polls; retry later. */
  public static final class TooManyWaiters extends BrokerException {
    public TooManyWaiters(int limit) {
      super("too many waiting consumers (limit " + limit + "); retry shortly");
    }
  }

  /** Storage failed, or the server is stopping; the command had no effect. */
  public static final class Unavailable extends BrokerException {
    public Unavailable(String detail) {
      super(detail);
    }
  }
}
