package dev.baton.testkit;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Sends POSIX signals with {@code kill -SIG pid}. Java can only terminate processes; SIGSTOP and SIGCONT, which
 * simulate a hung server, need the system command.
 */
final class Signals {

    private static final long TIMEOUT_SECONDS = 10;

    private Signals() {}

    /** Sends {@code signal} (e.g. {@code "STOP"}) to {@code pid}; throws if {@code kill} fails. */
    static void send(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + pid + " did not finish");
            }
            if (kill.exitValue() != 0) {
                String output = new String(kill.getInputStream().readAllBytes()).trim();
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill -" + signal + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted sending SIG" + signal + " to " + pid, e);
        }
    }
}
