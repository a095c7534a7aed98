package dev.wharf.crash;

/** The port of the server currently up, or none while it is being killed and restarted. */
final class ServerSlot {
  private int port;

  synchronized void up(int newPort) {
    port = newPort;
    notifyAll();
  }

  synchronized void down() {
    port = 0;
  }

  /** The current port, waiting up to {@code timeoutMs} for one; 0 when none came. */
  synchronized int await(long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    while (port == 0) {
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        return 0;
      }
      wait(left);
    }
    return port;
  }
}
