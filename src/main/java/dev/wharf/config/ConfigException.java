package dev.wharf.config;

import java.util.List;

/** A config file that cannot be used; {@link #errors()} lists every problem, each by path. */
public final class ConfigException extends RuntimeException {
  private final List<String> errors;

  public ConfigException(List<String> errors) {
    super(String.join("\n", errors));
    this.errors = List.copyOf(errors);
  }

  public List<String> errors() {
    return errors;
  }
}
