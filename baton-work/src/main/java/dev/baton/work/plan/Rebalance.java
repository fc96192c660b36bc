package dev.baton.work.plan;

import java.util.Arrays;

/**
 * The weighted mode's last step: moves a worker's heaviest item to the least loaded worker with room while that
 * lowers the pair's peak ({@code load(A) − heaviest(A) > load(B)}), until no pair allows it. The per-worker item
 * heaps are only built once a move is needed, so a balanced input costs one pass over the items.
 */
final class Rebalance {

    private final PlanInput in;
    private final Eligibility elig;
    private final long[] cap;
    private final long[] load;
    private final int[] result;
    private final long[] heaviest;
    private ItemHeap[] heaps;
    private final IntList moved = new IntList(4);

    Rebalance(PlanInput in, Eligibility elig, long[] cap, long[] load, int[] result) {
        this.in = in;
        this.elig = elig;
        this.cap = cap;
        this.load = load;
        this.result = result;
        this.heaviest = new long[elig.workerCount];
    }

    void run() {
        if (elig.eligibleCount < 2) {
            return;
        }
        heaps = null;
        Arrays.fill(heaviest, 0);
        for (int i = 0; i < result.length; i++) {
            int w = result[i];
            if (w >= 0) {
                heaviest[w] = Math.max(heaviest[w], in.weight(i));
            }
        }
        WorkerQueue queue = new WorkerQueue(load, elig);
        int[] order = new int[elig.workerCount];
        for (int w = 0; w < elig.workerCount; w++) {
            if (elig.eligible[w]) {
                queue.add(w);
            }
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            int count = 0;
            for (int w = 0; w < elig.workerCount; w++) {
                if (elig.eligible[w] && heaviest[w] > 0) {
                    order[count++] = w;
                }
            }
            IntSort.sort(order, count, (a, b) -> {
                int byExcess = Long.compare(load[b] - heaviest[b], load[a] - heaviest[a]);
                return byExcess != 0 ? byExcess : Integer.compare(elig.rank[a], elig.rank[b]);
            });
            for (int k = 0; k < count; k++) {
                int giver = order[k];
                while (heaviest[giver] > 0) {
                    long weight = heaviest[giver];
                    int least = queue.firstWithRoom(0, cap, giver);
                    if (least < 0 || load[giver] - weight <= load[least]) {
                        break;
                    }
                    int taker = queue.firstWithRoom(weight, cap, giver);
                    if (taker < 0 || load[giver] - weight <= load[taker]) {
                        break;
                    }
                    move(giver, taker);
                    queue.update(giver);
                    queue.update(taker);
                    changed = true;
                }
            }
        }
    }

    /** Items moved, in the order they moved (an item may appear more than once). */
    int[] movedItems() {
        return moved.toArray();
    }

    private void move(int giver, int taker) {
        if (heaps == null) {
            buildHeaps();
        }
        int item = heaps[giver].poll();
        long weight = in.weight(item);
        heaps[taker].add(item);
        load[giver] -= weight;
        load[taker] += weight;
        result[item] = taker;
        heaviest[giver] = heaps[giver].isEmpty() ? 0 : in.weight(heaps[giver].peek());
        heaviest[taker] = Math.max(heaviest[taker], weight);
        moved.add(item);
    }

    private void buildHeaps() {
        int[] counts = new int[elig.workerCount];
        for (int w : result) {
            if (w >= 0) {
                counts[w]++;
            }
        }
        heaps = new ItemHeap[elig.workerCount];
        for (int w = 0; w < elig.workerCount; w++) {
            heaps[w] = new ItemHeap(counts[w]);
        }
        for (int i = 0; i < result.length; i++) {
            if (result[i] >= 0) {
                heaps[result[i]].append(i);
            }
        }
        for (ItemHeap heap : heaps) {
            heap.heapify();
        }
    }

    /** A max-heap of item indexes by weight, then by index (the later item in canonical order first). */
    private final class ItemHeap {

        private int[] items;
        private int size;

        ItemHeap(int capacity) {
            items = new int[Math.max(capacity, 4)];
        }

        boolean isEmpty() {
            return size == 0;
        }

        int peek() {
            return items[0];
        }

        void append(int item) {
            if (size == items.length) {
                items = Arrays.copyOf(items, size * 2);
            }
            items[size++] = item;
        }

        void heapify() {
            for (int k = size / 2 - 1; k >= 0; k--) {
                siftDown(k);
            }
        }

        void add(int item) {
            append(item);
            int k = size - 1;
            while (k > 0) {
                int parent = (k - 1) >>> 1;
                if (!before(items[k], items[parent])) {
                    break;
                }
                swap(k, parent);
                k = parent;
            }
        }

        int poll() {
            int top = items[0];
            items[0] = items[--size];
            siftDown(0);
            return top;
        }

        private void siftDown(int k) {
            while (true) {
                int child = 2 * k + 1;
                if (child >= size) {
                    return;
                }
                if (child + 1 < size && before(items[child + 1], items[child])) {
                    child++;
                }
                if (!before(items[child], items[k])) {
                    return;
                }
                swap(k, child);
                k = child;
            }
        }

        private boolean before(int a, int b) {
            long wa = in.weight(a);
            long wb = in.weight(b);
            return wa != wb ? wa > wb : a > b;
        }

        private void swap(int a, int b) {
            int t = items[a];
            items[a] = items[b];
            items[b] = t;
        }
    }
}
