package dev.wharf.store;

import java.util.List;

/**
 * What {@link Store#messagesPublishAndClaim} did: the publish's results, and per claim (in the
 * order asked) the deliveries it leased.
 */
public record PublishedAndClaimed(List<PublishResult> published, List<List<Delivery>> claimed) {

  public PublishedAndClaimed {
    published = List.copyOf(published);
    claimed = List.copyOf(claimed);
  }
}
