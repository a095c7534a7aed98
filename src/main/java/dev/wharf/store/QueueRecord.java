package dev.wharf.store;

/**
 * A queue as persisted: its name, its settings as a JSON document the core owns, and a hash of
 * the settings the config file last applied (so a changed file wins over API edits, and an
 * unchanged file does not undo them).
 */
public record QueueRecord(String name, String settingsJson, String configHash) {}
