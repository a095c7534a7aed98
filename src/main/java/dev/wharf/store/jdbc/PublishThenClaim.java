package dev.wharf.store.jdbc;

import dev.wharf.store.ClaimRequest;
import dev.wharf.store.Delivery;
import dev.wharf.store.PublishResult;
import dev.wharf.store.PublishedAndClaimed;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The hand-off both JDBC backends run inside one transaction: the publish, then each claim. */
public final class PublishThenClaim {
  /** A backend's claim on the transaction under way. */
  public interface Claim {
    List<Delivery> apply(ClaimRequest request) throws SQLException;
  }

  private PublishThenClaim() {}

  public static PublishedAndClaimed run(
      List<PublishResult> published, List<ClaimRequest> claims, Claim claim)
      throws SQLException {
    List<List<Delivery>> claimed = new ArrayList<>(claims.size());
    for (ClaimRequest c : claims) {
      claimed.add(claim.apply(c));
    }
    return new PublishedAndClaimed(published, claimed);
  }
}
