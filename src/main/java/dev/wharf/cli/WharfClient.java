package dev.wharf.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wharf.core.BearerTokens;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.SSLException;

/**
 * A small client of the native management API. Failures come out as {@link CliException}s whose
 * message is the one line the user sees: the server unreachable (exit 2), or its error or an
 * answer that is not Wharf's JSON (exit 1).
 */
final class WharfClient {
  static final ObjectMapper JSON = new ObjectMapper();

  private final String baseUrl;
  private final String token;
  private final HttpClient http;

  WharfClient(String baseUrl, String token) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    checkUrl(this.baseUrl);
    // Trimmed as the server trims the header it comes in.
    String t = token == null ? null : token.trim();
    String unsendable = t == null || t.isEmpty() ? null : BearerTokens.problem(t);
    if (unsendable != null) {
      throw new CliException(CliException.FAILED, "the token cannot be sent: " + unsendable);
    }
    this.token = t;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  }

  /**
   * An answer: parsed to read its fields, and as received, so that {@code --json} and message
   * bodies show the server's own text (a JSON body keeps its digits: 7.50 stays 7.50).
   */
  record Answer(JsonNode json, String text) {}

  String baseUrl() {
    return baseUrl;
  }

  /** Refuses, in one line, a URL the HTTP client would only fail on with an exception. */
  private static void checkUrl(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw badUrl(url, "expected http://HOST:PORT");
    }
    String scheme = uri.getScheme();
    if (scheme == null || uri.getHost() == null) {
      throw badUrl(url, "expected http://HOST:PORT");
    }
    if (!scheme.equalsIgnoreCase("http") && !scheme.equalsIgnoreCase("https")) {
      throw badUrl(url, "the scheme must be http or https, not " + scheme);
    }
    if (uri.getPort() == 0 || uri.getPort() > 65535) {
      throw badUrl(url, "port " + uri.getPort() + " is not between 1 and 65535");
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      // The API paths are appended to the URL: a query or fragment would swallow them.
      throw badUrl(url, "no query or fragment allowed");
    }
  }

  private static CliException badUrl(String url, String why) {
    return new CliException(
        CliException.FAILED, "not a valid server URL: " + url + " (" + why + ")");
  }

  static String segment(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The answer to a GET, which must have the {@code expected} shape. */
  Answer get(String path, Shape expected) {
    return send(request(path).GET(), path, expected);
  }

  /** Posts a JSON tree; a {@code RawValue} in it (the user's JSON) is sent exactly as written. */
  Answer post(String path, JsonNode body, Shape expected) {
    String text;
    try {
      text = JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(text)),
        path,
        expected);
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder b;
    try {
      b = HttpRequest.newBuilder(URI.create(baseUrl + path));
    } catch (IllegalArgumentException e) {
      throw badUrl(baseUrl, e.getMessage());
    }
    b.timeout(Duration.ofSeconds(60)).header("Accept", "application/json");
    if (token != null && !token.isEmpty()) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  private Answer send(HttpRequest.Builder builder, String path, Shape expected) {
    HttpResponse<String> response;
    try {
      response = http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IllegalArgumentException e) {
      // What checkUrl cannot foresee still ends as one line, not a stack trace.
      throw badUrl(baseUrl, e.getMessage());
    } catch (IOException e) {
      throw unreachable(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(CliException.FAILED, "interrupted");
    }
    JsonNode body = parse(response.body());
    if (response.statusCode() / 100 != 2) {
      if (body == null || !body.path("code").isTextual()) {
        // A proxy's or web server's error page: its HTML is no message for a terminal.
        throw notWharf(response, path);
      }
      String detail = body.hasNonNull("detail") ? ": " + body.get("detail").asText() : "";
      throw new CliException(
          CliException.FAILED,
          "server answered "
              + response.statusCode()
              + " "
              + body.get("code").asText()
              + detail
              + tokenHint(response.statusCode()));
    }
    if (body == null || !expected.fits(body)) {
      throw notWharf(response, path);
    }
    return new Answer(body, response.body().strip());
  }

  /**
   * The answer as one JSON value, or null: trailing text means it is not one. A field given twice
   * is refused too, since the tree would keep the last and the text that is printed the first.
   */
  private static JsonNode parse(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return JSON.reader()
          .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .readTree(text);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  private CliException notWharf(HttpResponse<String> response, String path) {
    String what =
        response.body() == null || response.body().isEmpty()
            ? "no body"
            : response.headers().firstValue("Content-Type").map(Printable::of).orElse("no type");
    return new CliException(
        CliException.FAILED,
        "the answer from "
            + baseUrl
            + " to "
            + response.request().method()
            + " "
            + path
            + " is not Wharf's JSON (status "
            + response.statusCode()
            + ", "
            + what
            + ")");
  }

  /**
   * Where a token comes from, after a 401: the server's detail says that a token is missing or
   * not accepted, and nothing of the options that give one.
   */
  private String tokenHint(int status) {
    if (status != 401) {
      return "";
    }
    return token == null || token.isEmpty()
        ? " (no token was sent: give one with --token or $WHARF_TOKEN, or name the config that"
            + " holds auth.admin_token with -c)"
        : " (the token sent came from --token, $WHARF_TOKEN or the config's auth.admin_token)";
  }

  private CliException unreachable(IOException e) {
    String why;
    SSLException tls = (SSLException) cause(e, SSLException.class);
    if (tls != null) {
      // An https URL for a server that speaks plain HTTP fails in the handshake: the server is
      // there, and "is it running?" would send the user looking in the wrong place.
      String m = tls.getMessage() == null ? tls.getClass().getSimpleName() : tls.getMessage();
      boolean plain = m.contains("plaintext");
      return new CliException(
          CliException.UNREACHABLE,
          "cannot reach the server at "
              + baseUrl
              + " (TLS failed: "
              + m
              + ")"
              + (plain
                  ? " — the server there answers plain HTTP, as 'wharf serve' does: use http://"
                  : " — check the TLS setup of the server or proxy there"));
    }
    if (e instanceof HttpConnectTimeoutException) {
      why = "connect timed out";
    } else if (e instanceof HttpTimeoutException) {
      why = "no answer in time";
    } else if (causedBy(e, UnknownHostException.class)
        || causedBy(e, UnresolvedAddressException.class)) {
      // The JDK client reports a failed name lookup as a ConnectException: test for it first.
      return new CliException(
          CliException.UNREACHABLE,
          "cannot reach the server at "
              + baseUrl
              + " (the host "
              + host()
              + " could not be resolved) — check the host name");
    } else if (causedBy(e, ConnectException.class)) {
      String m = cause(e, ConnectException.class).getMessage();
      why = m == null || m.isBlank() ? "connection refused" : m.toLowerCase(java.util.Locale.ROOT);
    } else {
      why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
    return new CliException(
        CliException.UNREACHABLE,
        "cannot reach the server at " + baseUrl + " (" + why + ") — is 'wharf serve' running?");
  }

  private String host() {
    return URI.create(baseUrl).getHost();
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    return cause(e, type) != null;
  }

  private static Throwable cause(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return t;
      }
    }
    return null;
  }
}
