package dev.wharf.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;

/** A thin JSON client over java.net.http for the tests. */
final class Api {
  static final ObjectMapper JSON = new ObjectMapper();

  final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  final String base;
  String token;

  Api(String host, int port) {
    this.base = "http://" + host + ":" + port;
  }

  Api withToken(String t) {
    Api a = new Api(base);
    a.token = t;
    return a;
  }

  private Api(String base) {
    this.base = base;
  }

  record Reply(int status, JsonNode json, String text, HttpResponse<String> raw) {
    String code() {
      return json == null ? null : json.path("code").asText(null);
    }

    String detail() {
      return json == null ? null : json.path("detail").asText(null);
    }
  }

  Reply get(String path) {
    return send("GET", path, BodyPublishers.noBody(), null);
  }

  Reply delete(String path) {
    return send("DELETE", path, BodyPublishers.noBody(), null);
  }

  Reply post(String path, String json) {
    return send("POST", path, BodyPublishers.ofString(json), "application/json");
  }

  Reply put(String path, String json) {
    return send("PUT", path, BodyPublishers.ofString(json), "application/json");
  }

  HttpRequest.Builder request(String path) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(40));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  Reply send(String method, String path, BodyPublisher body, String contentType) {
    HttpRequest.Builder b = request(path).method(method, body);
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    return send(b.build());
  }

  Reply send(HttpRequest req) {
    try {
      HttpResponse<String> r = client.send(req, BodyHandlers.ofString());
      JsonNode json = null;
      String type = r.headers().firstValue("content-type").orElse("");
      if (type.startsWith("application/json") && !r.body().isEmpty()) {
        json = JSON.readTree(r.body());
      }
      return new Reply(r.statusCode(), json, r.body(), r);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
