package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.wharf.http.Api.Reply;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Admin token on management routes, consumer tokens on data routes, the loopback rule. */
class AuthTest {
  @TempDir Path dir;

  @Test
  void adminTokenGuardsManagementRoutes() {
    try (TestServer s = new TestServer(dir, "adm1n", false, "127.0.0.1")) {
      Api anon = s.api;
      Api admin = s.api.withToken("adm1n");
      Reply missing = anon.put("/v1/queues/q", "{}");
      assertThat(missing.status()).isEqualTo(401);
      assertThat(missing.code()).isEqualTo("unauthorized");
      assertThat(missing.raw().headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
      assertThat(s.api.withToken("adm1n-not").put("/v1/queues/q", "{}").status()).isEqualTo(401);
      assertThat(s.api.withToken("adm1").get("/v1/queues").status()).isEqualTo(401);
      assertThat(admin.put("/v1/queues/q", "{}").status()).isEqualTo(201);
      assertThat(admin.get("/v1/queues/q/dlq").status()).isEqualTo(200);
      assertThat(anon.get("/v1/queues/q/dlq").status()).isEqualTo(401);
      // Open routes stay open.
      assertThat(anon.get("/healthz").status()).isEqualTo(200);
      assertThat(anon.get("/metrics").status()).isEqualTo(200);
      // A queue without consumer tokens is open to data routes.
      assertThat(anon.post("/v1/queues/q/messages", "{\"body\": 1}").status()).isEqualTo(201);
      assertThat(admin.get("/v1/queues/q").json().at("/stats/ready").asInt()).isEqualTo(1);
    }
  }

  @Test
  void consumerTokensGuardTheirQueuesDataRoutes() {
    try (TestServer s = new TestServer(dir, "adm1n", false, "127.0.0.1")) {
      Api admin = s.api.withToken("adm1n");
      Reply created = admin.put("/v1/queues/q", "{\"consumer_tokens\": [\"c0nsumer\", \"other\"]}");
      assertThat(created.json().at("/settings/consumer_tokens").asInt()).isEqualTo(2);
      assertThat(created.text()).doesNotContain("c0nsumer");

      Reply missing = s.api.post("/v1/queues/q/messages", "{\"body\": 1}");
      assertThat(missing.status()).isEqualTo(401);
      assertThat(missing.code()).isEqualTo("unauthorized");
      assertThat(s.api.withToken("wrong").post("/v1/queues/q/receive", "{}").status())
          .isEqualTo(401);
      // Who may call comes before what is wrong with the call, on receive as elsewhere.
      assertThat(s.api.post("/v1/queues/q/receive?x=1", "{}").status()).isEqualTo(401);
      assertThat(s.api.withToken("other").post("/v1/queues/q/receive?x=1", "{}").code())
          .isEqualTo("invalid_param");
      Api consumer = s.api.withToken("c0nsumer");
      assertThat(consumer.post("/v1/queues/q/messages", "{\"body\": 1}").status()).isEqualTo(201);
      assertThat(s.api.withToken("other").post("/v1/queues/q/receive", "{}").status())
          .isEqualTo(200);
      assertThat(admin.post("/v1/queues/q/ack", "{\"lease_id\": \"1.ffffffffffffffff\"}").status())
          .isEqualTo(409);
      // A consumer token is a known credential, but not a management one: 403, not 401.
      Reply management = consumer.get("/v1/queues/q");
      assertThat(management.status()).isEqualTo(403);
      assertThat(management.code()).isEqualTo("forbidden");
      assertThat(consumer.post("/v1/queues/q/purge", "").status()).isEqualTo(403);
      assertThat(admin.get("/v1/queues/q").json().at("/stats/leased").asInt()).isEqualTo(1);
      assertThat(s.api.withToken("wrong").get("/v1/queues/q").status()).isEqualTo(401);
      // Nor does it open another queue's data routes.
      Reply twice = admin.put("/v1/queues/q2", "{\"consumer_tokens\": [\"t2\", \"t2\"]}");
      assertThat(twice.json().at("/settings/consumer_tokens").asInt())
          .as("a token given twice is one token")
          .isEqualTo(1);
      // A header carries ASCII only: a token beyond it could be stored but never presented.
      Reply unsendable = admin.put("/v1/queues/q3", "{\"consumer_tokens\": [\"p\u00e4ss\"]}");
      assertThat(unsendable.status()).isEqualTo(400);
      assertThat(unsendable.detail()).contains("consumer_tokens[0]", "ASCII");
      assertThat(admin.get("/v1/queues/q3").status()).isEqualTo(404);
      Reply elsewhere = consumer.post("/v1/queues/q2/messages", "{\"body\": 1}");
      assertThat(elsewhere.status()).isEqualTo(403);
      assertThat(elsewhere.code()).isEqualTo("forbidden");
      assertThat(s.api.withToken("wrong").post("/v1/queues/q2/messages", "{\"body\": 1}").status())
          .isEqualTo(401);
    }
  }

  @Test
  void requireTokensClosesQueuesWithoutConsumerTokens() {
    try (TestServer s = new TestServer(dir, "adm1n", true, "127.0.0.1")) {
      Api admin = s.api.withToken("adm1n");
      admin.put("/v1/queues/q", "{}");
      assertThat(s.api.post("/v1/queues/q/messages", "{\"body\": 1}").status()).isEqualTo(401);
      assertThat(admin.post("/v1/queues/q/messages", "{\"body\": 1}").status()).isEqualTo(201);
      admin.put("/v1/queues/q2", "{\"consumer_tokens\": [\"c2\"]}");
      assertThat(s.api.withToken("c2").post("/v1/queues/q/messages", "{\"body\": 1}").status())
          .isEqualTo(403);
    }
  }

  /**
   * Tokens required and no admin token: a queue without consumer tokens is one no token opens, so
   * its data routes say that (403) rather than ask for a token (401) the client cannot have.
   */
  @Test
  void aQueueNoTokenCanOpenIsForbiddenNotUnauthorized() {
    try (TestServer s = new TestServer(dir, null, true, "127.0.0.1")) {
      assertThat(s.api.put("/v1/queues/q", "{}").status()).isEqualTo(201);
      assertThat(s.api.put("/v1/queues/t", "{\"consumer_tokens\": [\"t1\"]}").status())
          .isEqualTo(201);
      for (Api client : new Api[] {s.api, s.api.withToken("nope"), s.api.withToken("t1")}) {
        Reply refused = client.post("/v1/queues/q/messages", "{\"body\": 1}");
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.code()).isEqualTo("forbidden");
        assertThat(refused.detail()).contains("require_tokens", "consumer_tokens");
        assertThat(client.post("/v1/queues/q/receive", "{}").status()).isEqualTo(403);
        assertThat(client.get("/v1/queues/q/stream").status()).isEqualTo(403);
      }
      // A queue with tokens takes its own, and asks for one when none is sent.
      assertThat(s.api.withToken("t1").post("/v1/queues/t/messages", "{\"body\": 1}").status())
          .isEqualTo(201);
      assertThat(s.api.post("/v1/queues/t/messages", "{\"body\": 1}").status()).isEqualTo(401);
      // Given tokens from loopback, the closed queue opens to them.
      assertThat(s.api.put("/v1/queues/q", "{\"consumer_tokens\": [\"q1\"]}").status())
          .isEqualTo(200);
      assertThat(s.api.withToken("q1").post("/v1/queues/q/messages", "{\"body\": 1}").status())
          .isEqualTo(201);
      assertThat(s.api.get("/v1/queues/q").json().at("/stats/ready").asInt()).isEqualTo(1);
    }
  }

  @Test
  void withoutAnAdminTokenManagementAnswersOnlyLoopbackClients() throws Exception {
    InetAddress external = nonLoopbackAddress();
    assumeTrue(external != null, "this machine has no non-loopback IPv4 address to call from");
    try (TestServer s = new TestServer(dir, null, false, "0.0.0.0")) {
      Api local = s.api;
      Api remote = new Api(external.getHostAddress(), s.http.port());
      assertThat(local.put("/v1/queues/q", "{}").status()).isEqualTo(201);
      Reply refused = remote.get("/v1/queues/q");
      assertThat(refused.status()).isEqualTo(403);
      assertThat(refused.code()).isEqualTo("forbidden");
      assertThat(remote.put("/v1/queues/q2", "{}").status()).isEqualTo(403);
      // Data routes of an open queue do not depend on where the client is.
      assertThat(remote.post("/v1/queues/q/messages", "{\"body\": 1}").status()).isEqualTo(201);
      assertThat(local.get("/v1/queues/q").json().at("/stats/ready").asInt()).isEqualTo(1);
    }
  }

  private static InetAddress nonLoopbackAddress() throws SocketException {
    for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (!n.isUp() || n.isLoopback()) {
        continue;
      }
      for (InetAddress a : Collections.list(n.getInetAddresses())) {
        if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
          return a;
        }
      }
    }
    return null;
  }
}
