package dev.baton.testkit;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * One running server process of a topology (a Redis node or Sentinel, an etcd member), driven by signals: stopped
 * (SIGTERM, then SIGKILL), killed (SIGKILL, as a crash), paused (SIGSTOP) and resumed (SIGCONT). It holds the process
 * of the latest start; the launcher that starts it hands it over with {@link #started(Process)}. Thread-safe.
 */
final class SignalledProcess {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

    private final String name;
    private Process process;
    private boolean paused;

    /** @param name how messages call it, e.g. "replica 2" or "etcd member etcd-0" */
    SignalledProcess(String name) {
        this.name = name;
    }

    /** The process of a new start, not paused. */
    synchronized void started(Process started) {
        process = started;
        paused = false;
    }

    /** SIGTERM, and SIGKILL if it has not exited within 10 s. No-op if not running. */
    synchronized void stop() {
        if (!isRunning()) {
            return;
        }
        resume();
        process.destroy();
        if (!ServerProcesses.awaitExit(process, EXIT_TIMEOUT)) {
            kill();
        }
    }

    /** SIGKILL, as a crash, and waits until the process is gone. No-op if not running. */
    synchronized void kill() {
        if (!isRunning()) {
            return;
        }
        Signals.send(process.pid(), "KILL");
        paused = false;
        if (!ServerProcesses.awaitExit(process, EXIT_TIMEOUT)) {
            throw new IllegalStateException(name + " (pid " + process.pid() + ") did not die after SIGKILL");
        }
    }

    /** SIGSTOP: the process keeps its sockets but answers nothing until {@link #resume()}. */
    synchronized void pause() {
        if (!isRunning()) {
            throw new IllegalStateException(name + " is not running");
        }
        if (!paused) {
            Signals.send(process.pid(), "STOP");
            paused = true;
        }
    }

    /** SIGCONT after {@link #pause()}; no-op otherwise. */
    synchronized void resume() {
        if (paused && isRunning()) {
            Signals.send(process.pid(), "CONT");
        }
        paused = false;
    }

    synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** True between {@link #pause()} and {@link #resume()}, while the process runs. */
    synchronized boolean isPaused() {
        return paused && isRunning();
    }

    /** Fails with {@code detail} (e.g. the log's tail) if the latest start has exited. */
    synchronized void requireAlive(Supplier<String> detail) {
        if (process != null && !process.isAlive()) {
            throw new IllegalStateException(name + " exited with code " + process.exitValue() + "; " + detail.get());
        }
    }
}
