package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.peer.transport.PeerAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileDurableStateTest {

    private static final PeerAddress N2 = PeerAddress.of("10.0.0.2", 7400);

    @TempDir
    Path dataDir;

    @Test
    void aNewDataDirectoryHoldsNoState() {
        assertThat(new FileDurableState(dataDir.resolve("node")).load()).isEmpty();
        assertThat(dataDir.resolve("node")).isDirectory();
    }

    @Test
    void aStoredStateIsReadBackByTheNextInstance() throws Exception {
        AcceptorState state = new AcceptorState(7, 3, true, 7, new Ballot(7, 2, PeerAddress.parse("[::1]:7401")),
                new Ballot(7, 1, N2), N2, 6);
        new FileDurableState(dataDir).store(AcceptorState.INITIAL);
        new FileDurableState(dataDir).store(state);

        assertThat(new FileDurableState(dataDir).load()).contains(state);
        assertThat(dataDir.resolve(FileDurableState.FILE_NAME + ".tmp")).doesNotExist();
        assertThat(Files.size(dataDir.resolve(FileDurableState.FILE_NAME)))
                .isEqualTo((long) VoteLog.SLOTS * VoteLog.SLOT_SIZE);
    }

    @Test
    void aDamagedFileStopsTheNodeInsteadOfForgettingItsVotes() throws Exception {
        Files.writeString(dataDir.resolve(FileDurableState.FILE_NAME), "baton-quorum-state 1\nhighestVersion=x\n",
                StandardCharsets.UTF_8);
        assertThatThrownBy(() -> new FileDurableState(dataDir).load())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is damaged");
        Files.writeString(dataDir.resolve(FileDurableState.FILE_NAME), "something else\n", StandardCharsets.UTF_8);
        assertThatThrownBy(() -> new FileDurableState(dataDir).load()).hasMessageContaining("is damaged")
                .hasMessageContaining("whole number of 4096-byte slots");
    }

    @Test
    void aLogWhoseWrittenSlotsAreAllInvalidIsDamagedNotEmpty() throws Exception {
        FileDurableState file = new FileDurableState(dataDir);
        file.store(AcceptorState.INITIAL);
        file.close();
        byte[] bytes = Files.readAllBytes(file.file());
        bytes[20] ^= 1;
        Files.write(file.file(), bytes);

        assertThatThrownBy(() -> new FileDurableState(dataDir).load())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no slot holds a valid record");
    }

    @Test
    void aNodeRestartedOnItsDataDirectoryKeepsItsPromise() {
        FileDurableState file = new FileDurableState(dataDir);
        file.store(AcceptorState.INITIAL);
        PeerAddress proposer = PeerAddress.of("n2", 7400);
        Acceptor before = new Acceptor(file, new InlineEffects(file, null));
        before.prePropose(new Ballot(4, 3, proposer), QuorumMessage.Refusal.NONE, 0);

        FileDurableState reopened = new FileDurableState(dataDir);
        Acceptor after = new Acceptor(reopened, new InlineEffects(reopened, null));
        assertThat(after.startedWithoutState()).isFalse();
        assertThat(after.prePropose(new Ballot(4, 2, proposer), QuorumMessage.Refusal.NONE, 0).accepted()).isFalse();
        assertThat(after.highestVersion()).isEqualTo(4);
    }

    @Test
    void everyStoreThatReturnedIsReadBackAcrossManyTurnsOfTheLog() throws Exception {
        FileDurableState file = new FileDurableState(dataDir);
        long size = -1;
        for (int i = 1; i <= 3 * VoteLog.SLOTS + 5; i++) {
            AcceptorState state = promised(i);
            file.store(state);
            assertThat(new FileDurableState(dataDir).load()).as("after store %d", i).contains(state);
            if (i == 1) {
                size = Files.size(file.file());
            }
            assertThat(Files.size(file.file())).isEqualTo(size);
            if (i % 50 == 0) {
                file.close(); // a restart in the same process: the next store reads where to continue
            }
        }
    }

    @Test
    void aTornWriteAtEveryByteOfTheLastRecordRestoresThePreviousRecordForRecovery() throws Exception {
        // Twice: a write to a slot never used (zeros under it) and, after the log wrapped, over an old record.
        for (int stores : new int[] {3, VoteLog.SLOTS + 3}) {
            Path dir = dataDir.resolve("wrap-" + stores);
            FileDurableState file = new FileDurableState(dir);
            for (int i = 1; i < stores; i++) {
                file.store(promised(i));
            }
            byte[] before = Files.readAllBytes(file.file());
            file.store(promised(stores));
            byte[] after = Files.readAllBytes(file.file());
            file.close();

            int first = Arrays.mismatch(before, after);
            int last = after.length - 1;
            while (before[last] == after[last]) {
                last--;
            }
            assertThat(first).isNotNegative();
            Random garbage = new Random(stores);
            for (int torn = first; torn <= last; torn++) {
                byte[] onDisk = before.clone();
                System.arraycopy(after, first, onDisk, first, torn - first);
                Files.write(file.file(), onDisk);
                assertThat(new FileDurableState(dir).load()).as("torn at byte %d", torn)
                        .contains(previous(promised(stores - 1), before, onDisk));

                onDisk[torn] = (byte) (after[torn] ^ (1 + garbage.nextInt(255)));
                Files.write(file.file(), onDisk);
                assertThat(new FileDurableState(dir).load()).as("garbage at byte %d", torn)
                        .contains(previous(promised(stores - 1), before, onDisk));
            }
            Files.write(file.file(), after);
            assertThat(new FileDurableState(dir).load()).contains(promised(stores));
        }
    }

    @Test
    void aStoreAfterATornWriteIsTheNewestRecord() throws Exception {
        FileDurableState file = new FileDurableState(dataDir);
        file.store(promised(1));
        byte[] before = Files.readAllBytes(file.file());
        file.store(promised(2));
        file.close();
        byte[] after = Files.readAllBytes(file.file());
        int first = Arrays.mismatch(before, after);
        System.arraycopy(after, first, before, first, 30); // the record for 2 is torn after 30 bytes
        Files.write(file.file(), before);

        FileDurableState restarted = new FileDurableState(dataDir);
        assertThat(restarted.load()).contains(unrecovered(promised(1)));
        restarted.store(promised(3));
        assertThat(new FileDurableState(dataDir).load()).contains(promised(3));
    }

    @Test
    void aTornLastRecordSendsTheNodeThroughRecoveryWithTheOlderRecordAsItsFloor() throws Exception {
        FileDurableState file = new FileDurableState(dataDir);
        AcceptorState older = new AcceptorState(6, 2, true, 6, new Ballot(6, 1, N2), new Ballot(6, 1, N2), N2, 5);
        file.store(older);
        file.store(promised(7));
        file.close();
        byte[] bytes = Files.readAllBytes(file.file());
        bytes[VoteLog.SLOT_SIZE + 40] ^= 0x5a; // the newest record, in the second slot: its payload is damaged

        FileDurableState reopened = new FileDurableState(dataDir);
        Files.write(file.file(), bytes);
        assertThat(reopened.load()).contains(unrecovered(older));
        Acceptor acceptor = new Acceptor(reopened, new InlineEffects(reopened, null));
        assertThat(acceptor.recovered()).as("it must recover before it votes").isFalse();
        assertThat(acceptor.prePropose(new Ballot(9, 0, N2), QuorumMessage.Refusal.NONE, 0).refusal())
                .isEqualTo(QuorumMessage.Refusal.RECOVERING);
        assertThat(acceptor.highestVersion()).as("what the older record says is kept").isEqualTo(6);

        acceptor.finishRecovery(8);
        assertThat(new FileDurableState(dataDir).load()).hasValueSatisfying(s -> {
            assertThat(s.recovered()).isTrue();
            assertThat(s.barrier()).isEqualTo(8);
        });
    }

    @Test
    void aDamagedOlderRecordIsNotALoss() throws Exception {
        FileDurableState file = new FileDurableState(dataDir);
        for (int i = 1; i <= 3; i++) {
            file.store(promised(i));
        }
        file.close();
        byte[] bytes = Files.readAllBytes(file.file());
        bytes[40] ^= 0x5a; // the first record, long superseded

        Files.write(file.file(), bytes);
        assertThat(new FileDurableState(dataDir).load()).contains(promised(3));
    }

    @Test
    void aStateFileOfEarlierVersionsIsReadAndReplacedByALogOnTheFirstStore() throws Exception {
        AcceptorState old = promised(9);
        Files.writeString(dataDir.resolve(FileDurableState.FILE_NAME), TextState.format(old), StandardCharsets.UTF_8);

        FileDurableState file = new FileDurableState(dataDir);
        assertThat(file.load()).contains(old);
        file.store(promised(10));

        assertThat(Files.size(file.file())).isEqualTo((long) VoteLog.SLOTS * VoteLog.SLOT_SIZE);
        assertThat(new FileDurableState(dataDir).load()).contains(promised(10));
    }

    @Test
    void aRecordMustFitItsSlot() {
        assertThatThrownBy(() -> VoteLog.encode(java.nio.ByteBuffer.allocate(VoteLog.SLOT_SIZE), 1,
                new byte[VoteLog.MAX_PAYLOAD + 1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds 1 to " + VoteLog.MAX_PAYLOAD + " bytes");
    }

    /** {@code state} as a node reads it back after its next record was torn: it must recover before it votes. */
    private static AcceptorState unrecovered(AcceptorState state) {
        return new AcceptorState(state.highestVersion(), state.barrier(), false, state.instance(), state.promised(),
                state.acceptedBallot(), state.acceptedCandidate(), state.lastLed());
    }

    /** The previous record as read back: as it was if its successor slot is unchanged, else marked for recovery. */
    private static AcceptorState previous(AcceptorState state, byte[] before, byte[] onDisk) {
        return Arrays.equals(before, onDisk) ? state : unrecovered(state);
    }

    /** A state whose promise grows with {@code i}: a later one must never be read back as an earlier one. */
    private static AcceptorState promised(int i) {
        return new AcceptorState(i, 0, true, i, new Ballot(i, i, N2), null, null, 0);
    }
}
