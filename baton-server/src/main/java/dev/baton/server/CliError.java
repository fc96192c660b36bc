package dev.baton.server;

/**
 * A failure the CLI reports as one line and an exit code instead of a stack trace: the message is written for the
 * person at the terminal and names what to fix. Public for the commands in sub-packages ({@code baton chaos}); not an API.
 */
public final class CliError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    private CliError(int exitCode, String message, Throwable cause) {
        super(message, cause, false, false);
        this.exitCode = exitCode;
    }

    /** Something the user can fix (flags, configuration, backend address): exit code {@value BatonCli#EXIT_USAGE}. */
    public static CliError usage(String message) {
        return new CliError(BatonCli.EXIT_USAGE, message, null);
    }

    /** The same, keeping the cause for anyone who inspects it programmatically. */
    static CliError usage(String message, Throwable cause) {
        return new CliError(BatonCli.EXIT_USAGE, message, cause);
    }

    /** A command that ran but could not do what it promised: exit code {@value BatonCli#EXIT_FAILURE}. */
    public static CliError failure(String message) {
        return new CliError(BatonCli.EXIT_FAILURE, message, null);
    }

    int exitCode() {
        return exitCode;
    }
}
