package dev.baton.work.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The canonical item order is the same whichever sort produces it: small inputs (packed sort) and large ones (radix
 * sort) both give hash code, then id, then input position, with colliding hash codes ("Aa" and "BB") among them.
 */
class ItemOrderTest {

    private static String[] ids(long seed, int n) {
        Random random = new Random(seed);
        String[] ids = new String[n];
        for (int i = 0; i < n; i++) {
            StringBuilder id = new StringBuilder("d" + random.nextInt(50) + ";");
            for (int k = random.nextInt(4); k > 0; k--) {
                id.append(random.nextBoolean() ? "Aa" : "BB"); // same hashCode either way
            }
            ids[i] = id.append(random.nextInt(3)).toString();
        }
        return ids;
    }

    private static int[] reference(String[] ids) {
        return IntStream.range(0, ids.length).boxed()
                .sorted(Comparator.<Integer, String>comparing(i -> ids[i], ItemOrder::compare)
                        .thenComparing(Comparator.naturalOrder()))
                .mapToInt(Integer::intValue).toArray();
    }

    @Property(tries = 200)
    void smallInputsSortInTheCanonicalOrder(@ForAll long seed, @ForAll @IntRange(min = 0, max = 300) int n) {
        String[] ids = ids(seed, n);
        assertThat(ItemOrder.sort(ids)).containsExactly(reference(ids));
    }

    @Test
    void inputsOnBothSidesOfTheThresholdSortInTheCanonicalOrder() {
        for (int n : new int[] {ItemOrder.RADIX_THRESHOLD - 1, ItemOrder.RADIX_THRESHOLD, 20_000}) {
            String[] ids = ids(n, n);
            assertThat(ItemOrder.sort(ids)).as("%d items", n).containsExactly(reference(ids));
        }
    }
}
