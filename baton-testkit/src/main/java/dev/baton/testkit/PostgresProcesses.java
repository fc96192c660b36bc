package dev.baton.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server is a postmaster and the processes it forks: one backend per connection, plus the checkpointer,
 * WAL writer and other helpers. A crash or a hang of the server means all of them, so signals go to the whole tree.
 */
final class PostgresProcesses {

    private static final Path PROC = Path.of("/proc");
    private static final long TIMEOUT_SECONDS = 10;
    private static final long POLL_MILLIS = 10;

    private PostgresProcesses() {}

    /** The postmaster and its current descendants, postmaster first. */
    static List<Long> tree(long postmasterPid) {
        List<Long> pids = new ArrayList<>();
        pids.add(postmasterPid);
        ProcessHandle.of(postmasterPid).ifPresent(p -> p.descendants().forEach(d -> pids.add(d.pid())));
        return pids;
    }

    /**
     * Sends {@code signal} (e.g. {@code "STOP"}) to every pid in one {@code kill} run. A process that exited
     * meanwhile (a backend whose client disconnected) is not an error; any other failure is.
     */
    static void signal(String signal, List<Long> pids) {
        if (pids.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        pids.forEach(pid -> command.add(Long.toString(pid)));
        if (run(command) == 0) {
            return;
        }
        for (long pid : pids) {
            try {
                Signals.send(pid, signal);
            } catch (IllegalStateException e) {
                if (isAlive(pid)) {
                    throw e;
                }
            }
        }
    }

    /** Waits until none of {@code pids} runs any more; false if some still do after {@code timeout}. */
    static boolean awaitGone(List<Long> pids, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pids.stream().anyMatch(PostgresProcesses::isAlive)) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            try {
                // Not our children (the postmaster forked them), so there is nothing to wait on but their state.
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for PostgreSQL processes to exit", e);
            }
        }
        return true;
    }

    /**
     * Waits until each of {@code pids} that still runs is stopped by a signal (state {@code T} in /proc): SIGSTOP is
     * delivered asynchronously, so a process may still run for a moment after {@code kill -STOP} returned. False if
     * some still run after {@code timeout}; true at once where /proc is not there to tell.
     */
    static boolean awaitStopped(List<Long> pids, Duration timeout) {
        if (!Files.isDirectory(PROC.resolve("self"))) {
            return true;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pids.stream().anyMatch(pid -> isAlive(pid) && !isStopped(pid))) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for PostgreSQL processes to stop", e);
            }
        }
        return true;
    }

    private static boolean isStopped(long pid) {
        try {
            String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8);
            int close = stat.lastIndexOf(')');
            char state = close >= 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
            return state == 'T' || state == 't';
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * True while {@code pid} runs. An exited process that nobody has reaped yet (a zombie, as orphaned backends
     * are until init collects them) counts as gone: it holds no port, no shared memory and no files.
     */
    static boolean isAlive(long pid) {
        if (!Files.isDirectory(PROC.resolve("self"))) {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
        try {
            String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8);
            // "pid (comm) S ...": the command name may contain spaces and parentheses, the state follows the last ')'.
            int close = stat.lastIndexOf(')');
            char state = close >= 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
            return state != 'Z' && state != 'X';
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
    }

    private static int run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish");
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + String.join(" ", command), e);
        }
    }
}
