package dev.baton.work.plan;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The planner's answer, immutable: the new assignment, the moves from the current one, and the desired items left
 * on no worker with the reason.
 *
 * <p>A plan is computed into arrays indexed by item; {@link #moves()}, {@link #assignment()} and
 * {@link #unassigned()} create their objects when first called. Moves come in the input's canonical item order
 * (the same for any order the input was given in), then the unsubscriptions of items that are not desired.
 */
public final class Plan {

    private final PlanInput input;
    private final BalanceMode mode;
    /** Per item, the worker index it ends on, or -1. */
    final int[] assignment;
    /** Per worker index, its load in this plan's mode (items, or total weight in weighted and load mode). */
    final long[] loads;
    /** Items whose placements change, in canonical order. */
    private final int[] movedItems;
    private final int[] unassignedItems;
    private final UnassignedReason[] unassignedReasons;
    private final int moveCount;

    private volatile List<Move> moves;
    private volatile Map<String, String> assignmentMap;

    Plan(PlanInput input, BalanceMode mode, int[] assignment, long[] loads, int[] movedItems, int[] unassignedItems,
            UnassignedReason[] unassignedReasons) {
        this.input = input;
        this.mode = mode;
        this.assignment = assignment;
        this.loads = loads;
        this.movedItems = movedItems;
        this.unassignedItems = unassignedItems;
        this.unassignedReasons = unassignedReasons;
        int count = input.staleItem.length;
        for (int i : movedItems) {
            count += movesOf(i, null);
        }
        this.moveCount = count;
    }

    /** The input this plan was made from. */
    public PlanInput input() {
        return input;
    }

    /** The mode this plan balanced in. */
    public BalanceMode mode() {
        return mode;
    }

    /** The worker the item ends on, if it is desired and placed. */
    public Optional<String> workerOf(String item) {
        int i = input.indexOf(item);
        return i < 0 || assignment[i] < 0 ? Optional.empty() : Optional.of(input.workers[assignment[i]].id());
    }

    /**
     * The new assignment, item id to worker id, in canonical item order; items on no worker are absent. Built on
     * first call.
     */
    public Map<String, String> assignment() {
        Map<String, String> map = assignmentMap;
        if (map == null) {
            Map<String, String> built = new LinkedHashMap<>(input.itemCount() * 2);
            for (int i = 0; i < assignment.length; i++) {
                if (assignment[i] >= 0) {
                    built.put(input.itemIds[i], input.workers[assignment[i]].id());
                }
            }
            map = Collections.unmodifiableMap(built);
            assignmentMap = map;
        }
        return map;
    }

    /** The items on {@code worker} in this plan, in canonical order (empty for an unknown worker). */
    public List<String> itemsOn(String worker) {
        int w = input.workerIndexOf(worker);
        List<String> items = new ArrayList<>();
        if (w >= 0) {
            for (int i = 0; i < assignment.length; i++) {
                if (assignment[i] == w) {
                    items.add(input.itemIds[i]);
                }
            }
        }
        return items;
    }

    /** The worker's load in this plan: its number of items in count mode, their total weight in weighted and load mode. */
    public long load(String worker) {
        int w = input.workerIndexOf(worker);
        return w < 0 ? 0 : loads[w];
    }

    /** The changes from the current assignment, in canonical item order. Built on first call. */
    public List<Move> moves() {
        List<Move> list = moves;
        if (list == null) {
            List<Move> built = new ArrayList<>(moveCount);
            for (int i : movedItems) {
                movesOf(i, built);
            }
            for (int s = 0; s < input.staleItem.length; s++) {
                built.add(new Move(input.staleItem[s], input.workers[input.staleWorker[s]].id(), null));
            }
            list = Collections.unmodifiableList(built);
            moves = list;
        }
        return list;
    }

    /** The number of entries in {@link #moves()}, without building it. */
    public int moveCount() {
        return moveCount;
    }

    /** The desired items on no worker, with the reason, in canonical order. */
    public List<Unassigned> unassigned() {
        List<Unassigned> list = new ArrayList<>(unassignedItems.length);
        for (int u = 0; u < unassignedItems.length; u++) {
            list.add(new Unassigned(input.itemIds[unassignedItems[u]], unassignedReasons[u]));
        }
        return Collections.unmodifiableList(list);
    }

    /** The number of desired items on no worker. */
    public int unassignedCount() {
        return unassignedItems.length;
    }

    /** The input for the next round: the same items and workers, with this plan as the current assignment. */
    public PlanInput nextInput() {
        return input.withAssignment(this);
    }

    /**
     * Counts (and, given a list, adds) the moves of item {@code i}: from its placements in the input to its worker
     * in this plan. An item placed on several workers keeps at most one placement and drops the others.
     */
    private int movesOf(int i, List<Move> out) {
        int to = assignment[i];
        int primary = input.current[i];
        int firstExtra = firstExtra(i);
        if (firstExtra < 0) {
            if (primary == to) {
                return 0;
            }
            add(out, i, primary, to);
            return 1;
        }
        // Several placements: keep the one on the final worker if any, else move one of them there.
        int count = 0;
        boolean landed = to < 0;
        List<Integer> placements = new ArrayList<>();
        placements.add(primary);
        for (int e = firstExtra; e < input.extraItem.length && input.extraItem[e] == i; e++) {
            placements.add(input.extraWorker[e]);
        }
        if (!landed && placements.contains(to)) {
            landed = true;
        }
        for (int p : placements) {
            if (p == to) {
                continue;
            }
            if (!landed) {
                add(out, i, p, to);
                landed = true;
            } else {
                add(out, i, p, -1);
            }
            count++;
        }
        return count;
    }

    private void add(List<Move> out, int i, int from, int to) {
        if (out != null) {
            out.add(new Move(input.itemIds[i], from < 0 ? null : input.workers[from].id(),
                    to < 0 ? null : input.workers[to].id()));
        }
    }

    private int firstExtra(int item) {
        int[] extras = input.extraItem;
        if (extras.length == 0) {
            return -1;
        }
        int lo = 0;
        int hi = extras.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (extras[mid] < item) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < extras.length && extras[lo] == item ? lo : -1;
    }

    @Override
    public String toString() {
        return "Plan[mode=" + mode + ", items=" + assignment.length + ", moves=" + moveCount + ", unassigned="
                + unassignedItems.length + "]";
    }
}
