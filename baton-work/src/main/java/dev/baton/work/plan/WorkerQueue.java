package dev.baton.work.plan;

/**
 * An indexed binary min-heap of worker indexes ordered by load, then DRS score at that load, then id: the least
 * loaded worker with the best score first. Loads live in the caller's array; after changing one, call
 * {@link #update(int)}.
 */
final class WorkerQueue {

    private final long[] load;
    private final Eligibility elig;
    private final int[] heap;
    private final int[] position;
    private int size;

    WorkerQueue(long[] load, Eligibility elig) {
        this.load = load;
        this.elig = elig;
        this.heap = new int[elig.workerCount];
        this.position = new int[elig.workerCount];
        java.util.Arrays.fill(position, -1);
    }

    boolean isEmpty() {
        return size == 0;
    }

    boolean contains(int w) {
        return position[w] >= 0;
    }

    void add(int w) {
        heap[size] = w;
        position[w] = size;
        size++;
        siftUp(size - 1);
    }

    void remove(int w) {
        int at = position[w];
        if (at < 0) {
            return;
        }
        size--;
        position[w] = -1;
        if (at != size) {
            int last = heap[size];
            heap[at] = last;
            position[last] = at;
            siftDown(at);
            siftUp(position[last]);
        }
    }

    /** Restores the order after worker {@code w}'s load changed. */
    void update(int w) {
        int at = position[w];
        if (at >= 0) {
            siftUp(at);
            siftDown(position[w]);
        }
    }

    /**
     * The first worker in queue order, other than {@code exclude}, whose room ({@code capacity - load}) is at least
     * {@code need}; or -1. Workers without room are skipped and stay queued.
     */
    int firstWithRoom(long need, long[] capacity, int exclude) {
        if (size == 0) {
            return -1;
        }
        int top = heap[0];
        if (top != exclude && capacity[top] - load[top] >= need) {
            return top;
        }
        // Walk the heap in order, visiting only nodes that could come before the answer: a best-first search over
        // the tree, with a small frontier kept as a heap of heap positions.
        int[] frontier = new int[Math.min(size, 64)];
        int frontierSize = 0;
        frontier[frontierSize++] = 0;
        while (frontierSize > 0) {
            int at = frontier[0];
            frontier[0] = frontier[--frontierSize];
            siftDownPositions(frontier, frontierSize, 0);
            int w = heap[at];
            if (w != exclude && capacity[w] - load[w] >= need) {
                return w;
            }
            for (int child = 2 * at + 1; child <= 2 * at + 2 && child < size; child++) {
                if (frontierSize == frontier.length) {
                    frontier = java.util.Arrays.copyOf(frontier, frontier.length * 2);
                }
                frontier[frontierSize] = child;
                siftUpPositions(frontier, frontierSize);
                frontierSize++;
            }
        }
        return -1;
    }

    private void siftUpPositions(int[] frontier, int k) {
        int value = frontier[k];
        while (k > 0) {
            int parent = (k - 1) >>> 1;
            if (!less(heap[value], heap[frontier[parent]])) {
                break;
            }
            frontier[k] = frontier[parent];
            k = parent;
        }
        frontier[k] = value;
    }

    private void siftDownPositions(int[] frontier, int frontierSize, int k) {
        if (frontierSize == 0) {
            return;
        }
        int value = frontier[k];
        while (true) {
            int child = 2 * k + 1;
            if (child >= frontierSize) {
                break;
            }
            if (child + 1 < frontierSize && less(heap[frontier[child + 1]], heap[frontier[child]])) {
                child++;
            }
            if (!less(heap[frontier[child]], heap[value])) {
                break;
            }
            frontier[k] = frontier[child];
            k = child;
        }
        frontier[k] = value;
    }

    private boolean less(int a, int b) {
        if (load[a] != load[b]) {
            return load[a] < load[b];
        }
        int byScore = Double.compare(elig.score(a, load[a]), elig.score(b, load[b]));
        return byScore != 0 ? byScore < 0 : elig.rank[a] < elig.rank[b];
    }

    private void siftUp(int k) {
        int w = heap[k];
        while (k > 0) {
            int parent = (k - 1) >>> 1;
            int p = heap[parent];
            if (!less(w, p)) {
                break;
            }
            heap[k] = p;
            position[p] = k;
            k = parent;
        }
        heap[k] = w;
        position[w] = k;
    }

    private void siftDown(int k) {
        int w = heap[k];
        while (true) {
            int child = 2 * k + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && less(heap[child + 1], heap[child])) {
                child++;
            }
            int c = heap[child];
            if (!less(c, w)) {
                break;
            }
            heap[k] = c;
            position[c] = k;
            k = child;
        }
        heap[k] = w;
        position[w] = k;
    }
}
