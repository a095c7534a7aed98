package dev.wharf.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The connection cap against the process's own open-file limit, as this JVM reports it. */
class FileDescriptorsTest {
  private final long limit =
      ((UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
          .getMaxFileDescriptorCount();

  @Test
  void aCapWithinTheLimitIsKeptAndOnePastItIsLoweredToLeaveTheReserve() {
    assertThat(FileDescriptors.roomFor(1)).isEqualTo(1);
    int room = (int) Math.max(1, limit - FileDescriptors.RESERVED);
    assertThat(FileDescriptors.roomFor(room)).isEqualTo(room);
    assertThat(FileDescriptors.roomFor(Integer.MAX_VALUE)).isEqualTo(room);
    assertThat(FileDescriptors.room()).isEqualTo(room);
  }
}
