package dev.wharf.store;

/**
 * What one publish did.
 *
 * @param duplicate the idempotency key was seen within its window; {@code id} is the first message
 * @param replaced a ready message with the same key was overwritten in place; {@code id} is its id
 */
public record PublishResult(String id, boolean duplicate, boolean replaced) {}
