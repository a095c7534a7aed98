package dev.wharf.store.postgres;

import dev.wharf.store.ClaimRequest;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import dev.wharf.store.PublishedAndClaimed;
import dev.wharf.store.jdbc.PublishThenClaim;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * How a publish becomes a writer lane's operation: a plain one merges with the others waiting in
 * its lane into one insert, and one with keys has the lane take them first, with the rest of its
 * batch's, in one order ({@link PgWriter.KeyLocking}), as does a publish then claim, which runs
 * both in one transaction.
 */
final class PgPublishOps {
  private PgPublishOps() {}

  /** The writer's merger: the plain publishes of one batch, as one multi-row insert. */
  static List<Object> mergePlain(PgTx tx, List<PgWriter.Mergeable<?>> ops)
      throws SQLException {
    List<PgPublish.Plain> plain = new ArrayList<>(ops.size());
    for (PgWriter.Mergeable<?> op : ops) {
      plain.add((PgPublish.Plain) op);
    }
    return new ArrayList<>(PgPublish.mergeAll(tx, plain));
  }

  static PgWriter.Op<List<PublishResult>> publish(PublishBatch batch) {
    return PgPublish.isPlain(batch)
        ? new PgPublish.Plain(batch)
        : PgPublish.lockingKeys(batch, tx -> PgPublish.publish(tx, batch));
  }

  static PgWriter.Op<PublishedAndClaimed> publishThenClaim(
      PublishBatch batch, List<ClaimRequest> claims) {
    return PgPublish.lockingKeys(batch, tx -> PublishThenClaim.run(
        PgPublish.publish(tx, batch), claims, c -> PgClaim.claim(tx, c)));
  }
}
