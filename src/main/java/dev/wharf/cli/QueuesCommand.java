package dev.wharf.cli;

import static dev.wharf.cli.MessageText.text;
import static dev.wharf.cli.WharfClient.segment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code wharf queues …}: look into queues and their dead letters on a running server. */
@Command(
    name = "queues",
    description = "List, inspect and manage the queues of a running server.",
    mixinStandardHelpOptions = true)
final class QueuesCommand implements Runnable {
  /** The widest a field of a message row (a dead reason, mostly) is shown. */
  private static final int REASON_WIDTH = 60;

  @ParentCommand Main main;
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw Main.missingCommand(spec);
  }

  private PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** The server's answer as received: re-serialising it would change the numbers in bodies. */
  private void printJson(String text) {
    out().println(text);
    out().flush();
  }

  private static String path(String queue) {
    return "/v1/queues/" + segment(queue);
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List queues with their message counts.")
  void list(@Mixin ClientOptions o) {
    WharfClient.Answer got = o.client(main.env).get("/v1/queues", Shape.QUEUES);
    if (o.json) {
      printJson(got.text());
      return;
    }
    JsonNode answer = got.json();
    Table t = new Table("QUEUE", "READY", "DELAYED", "LEASED", "EXPIRED", "DEAD", "DLQ");
    for (JsonNode q : answer.path("queues")) {
      JsonNode s = q.path("stats");
      t.row(
          text(q, "name"),
          text(s, "ready"),
          text(s, "delayed"),
          text(s, "leased"),
          text(s, "expired"),
          text(s, "dead"),
          text(q.path("settings"), "dead_letter_queue"));
    }
    if (t.isEmpty()) {
      out().println("no queues");
      out().flush();
    } else {
      t.print(out());
    }
  }

  @Command(
      name = "inspect",
      mixinStandardHelpOptions = true,
      description = "Show a queue's settings, stats and first messages.")
  void inspect(
      @Parameters(paramLabel = "QUEUE") String queue,
      @Option(
              names = "--limit",
              paramLabel = "N",
              defaultValue = "10",
              description = "messages to show, 1-1000 (default 10)")
          int limit,
      @Mixin ClientOptions o) {
    checkLimit(limit);
    WharfClient client = o.client(main.env);
    WharfClient.Answer queueAnswer = client.get(path(queue), Shape.QUEUE);
    WharfClient.Answer messages =
        client.get(path(queue) + "/messages?limit=" + limit, Shape.MESSAGES);
    if (o.json) {
      printJson(
          "{\"queue\":"
              + queueAnswer.text()
              + ",\"messages\":"
              + JsonText.member(messages.text(), "messages")
              + "}");
      return;
    }
    JsonNode q = queueAnswer.json();
    PrintWriter out = out();
    out.println("queue " + text(q, "name"));
    out.println();
    Table settings = new Table("SETTING", "VALUE");
    q.path("settings")
        .fields()
        .forEachRemaining(e -> settings.row(e.getKey(), text(q.path("settings"), e.getKey())));
    settings.print(out);
    out.println();
    Table stats = new Table("STAT", "VALUE");
    q.path("stats")
        .fields()
        .forEachRemaining(e -> stats.row(e.getKey(), text(q.path("stats"), e.getKey())));
    stats.print(out);
    out.println();
    printMessages(messages, "no messages");
  }

  @Command(
      name = "peek",
      mixinStandardHelpOptions = true,
      description = "Show the next ready message without consuming it.")
  void peek(@Parameters(paramLabel = "QUEUE") String queue, @Mixin ClientOptions o) {
    WharfClient.Answer answer =
        o.client(main.env).get(path(queue) + "/messages?state=ready&limit=1", Shape.MESSAGES);
    if (o.json) {
      printJson(answer.text());
      return;
    }
    JsonNode first = answer.json().path("messages").path(0);
    if (first.isMissingNode()) {
      out().println("no ready message in " + queue);
      out().flush();
      return;
    }
    MessageText.printDetail(out(), first, JsonText.membersOfEach(answer.text(), "messages").get(0));
  }

  @Command(
      name = "dlq",
      mixinStandardHelpOptions = true,
      description = "List the dead messages that came from a queue.")
  void dlq(
      @Parameters(paramLabel = "QUEUE") String queue,
      @Option(
              names = "--limit",
              paramLabel = "N",
              defaultValue = "50",
              description = "messages to show, 1-1000 (default 50)")
          int limit,
      @Mixin ClientOptions o) {
    checkLimit(limit);
    WharfClient client = o.client(main.env);
    WharfClient.Answer answer = client.get(path(queue) + "/dlq?limit=" + limit, Shape.MESSAGES);
    if (o.json) {
      printJson(answer.text());
      return;
    }
    String none = "no dead messages from " + queue;
    if (answer.json().path("messages").isEmpty()) {
      none += whyNoDeadMessages(client, queue);
    }
    printMessages(
        answer, none, List.of("ID", "DIED_AT", "REASON"), List.of("id", "died_at", "dead_reason"));
  }

  /**
   * What more an empty list of dead messages says when the queue has no DLQ: none ever gathers,
   * as a message that dies there is deleted. "No dead messages" alone reads as "none died".
   */
  private static String whyNoDeadMessages(WharfClient client, String queue) {
    JsonNode q;
    try {
      q = client.get(path(queue), Shape.QUEUE).json();
    } catch (CliException e) {
      // The list itself was answered; this only explains it, so without it the list stands.
      return "";
    }
    JsonNode dlq = q.path("settings").path("dead_letter_queue");
    if (!dlq.isNull()) {
      return "";
    }
    JsonNode dropped = q.path("stats").path("dropped");
    return ": " + queue + " has no dead-letter queue, so its dead messages are dropped"
        + (dropped.isIntegralNumber()
            ? " (" + dropped.asText() + " since the server started)"
            : "");
  }

  @Command(
      name = "retry",
      mixinStandardHelpOptions = true,
      description = "Move dead messages back to their queue (all, or --id).")
  void retry(
      @Parameters(paramLabel = "QUEUE") String queue,
      @Option(names = "--id", paramLabel = "ID", description = "one message (repeatable)")
          List<String> ids,
      @Mixin ClientOptions o) {
    ObjectNode body = WharfClient.JSON.createObjectNode();
    if (ids != null && !ids.isEmpty()) {
      ids.forEach(body.putArray("ids")::add);
    }
    WharfClient.Answer answer =
        o.client(main.env).post(path(queue) + "/dlq/redrive", body, Shape.REDRIVEN);
    long n = answer.json().path("redriven").asLong();
    if (o.json) {
      printJson(answer.text());
    } else {
      out().println("moved " + n + " dead message" + (n == 1 ? "" : "s") + " back to " + queue);
      for (JsonNode id : answer.json().path("skipped")) {
        out().println("skipped " + id + ": no dead message of " + queue
            + " has that id");
      }
    }
    out().flush();
    if (ids != null && !ids.isEmpty() && n == 0) {
      // A script must see that nothing it named moved; with some moved, the run did its work.
      throw new CliException(CliException.FAILED,
          "none of the ids named is a dead message of " + queue);
    }
  }

  @Command(
      name = "drain",
      mixinStandardHelpOptions = true,
      description = "Delete every message of a queue (needs --force).")
  void drain(
      @Parameters(paramLabel = "QUEUE") String queue,
      @Option(names = "--force", description = "really delete them") boolean force,
      @Mixin ClientOptions o) {
    if (!force) {
      throw new CliException(
          CliException.FAILED,
          "drain deletes every message of " + queue + " and cannot be undone; add --force");
    }
    WharfClient.Answer answer =
        o.client(main.env)
            .post(path(queue) + "/purge", WharfClient.JSON.createObjectNode(), Shape.PURGED);
    if (o.json) {
      printJson(answer.text());
      return;
    }
    long n = answer.json().path("purged").asLong();
    out().println("deleted " + n + " message" + (n == 1 ? "" : "s") + " from " + queue);
    out().flush();
  }

  private void printMessages(WharfClient.Answer messages, String none) {
    printMessages(
        messages,
        none,
        List.of("ID", "STATE", "ATTEMPT", "PUBLISHED_AT"),
        List.of("id", "state", "attempt", "published_at"));
  }

  /** A table of the answer's messages: these fields, then a preview of the body as stored. */
  private void printMessages(
      WharfClient.Answer messages, String none, List<String> headings, List<String> fields) {
    List<String> columns = new ArrayList<>(headings);
    columns.add("BODY");
    Table t = new Table(columns.toArray(String[]::new)).textColumn("BODY");
    List<Map<String, String>> raw = JsonText.membersOfEach(messages.text(), "messages");
    int i = 0;
    for (JsonNode m : messages.json().path("messages")) {
      List<String> cells = new ArrayList<>();
      // A dead reason may be 1,024 characters: cut like the body, so a row stays a row.
      fields.forEach(f -> cells.add(Columns.cut(text(m, f), REASON_WIDTH)));
      cells.add(MessageText.bodyPreview(m, raw.get(i++)));
      t.row(cells.toArray(String[]::new));
    }
    if (t.isEmpty()) {
      out().println(none);
      out().flush();
    } else {
      t.print(out());
    }
  }

  private static void checkLimit(int limit) {
    if (limit < 1 || limit > 1000) {
      throw new CliException(CliException.FAILED, "--limit must be between 1 and 1000");
    }
  }
}
