package dev.baton.examples;

import dev.baton.core.store.StoreException;
import dev.baton.postgres.PostgresStore;

/**
 * {@link LeaderOnlyScheduler} on PostgreSQL instead of Redis: only the store changes. The lease lives in the
 * {@code leader_lease} table (created on first use), and release notices travel by LISTEN/NOTIFY.
 *
 * <pre>
 * java ... dev.baton.examples.PostgresLeaderOnlyScheduler postgresql://app:secret@127.0.0.1:5432/app [group]
 * </pre>
 */
public final class PostgresLeaderOnlyScheduler {

    private PostgresLeaderOnlyScheduler() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: PostgresLeaderOnlyScheduler postgresql://USER[:PASSWORD]@HOST[:PORT]/DB [group]");
            System.exit(2);
        }
        String group = args.length > 1 ? args[1] : "orders-scheduler";
        try (PostgresStore store = PostgresStore.connect(args[0])) {
            LeaderOnlyScheduler.lead(store, group);
        } catch (IllegalArgumentException | StoreException e) {   // a malformed URI; unreachable, wrong password, ...
            System.err.println(e.getMessage());
            System.exit(1);
        }
    }
}
