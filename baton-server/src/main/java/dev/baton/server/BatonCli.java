package dev.baton.server;

import dev.baton.server.chaos.ChaosCommand;
import java.io.PrintWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code baton} command line: {@code baton node} runs one election node, {@code baton demo} shows a failover,
 * {@code baton worker} runs a simulated seed-001 worker, {@code baton chaos} runs nodes under random faults and checks
 * what they did.
 *
 * <p>Exit codes are part of the interface, because scripts and supervisors act on them: {@value #EXIT_OK} on success
 * (a node that was told to stop by SIGTERM or SIGINT and released its leadership counts as success),
 * {@value #EXIT_FAILURE} when the demo could not show what it promised, {@value #EXIT_USAGE} for anything the user can
 * fix: a bad flag or duration, an invalid configuration, an unreachable backend at start. A user error prints exactly
 * one line, {@code baton: error: <message>}, on stderr and never a stack trace; stdout stays reserved for the node's
 * JSON lines.
 */
@Command(
        name = "baton",
        mixinStandardHelpOptions = true,
        versionProvider = BatonCli.Version.class,
        description = "Leader election with fencing terms over Redis, PostgreSQL, in memory, or with no server "
                + "(quorum, bully).",
        subcommands = {NodeCommand.class, DemoCommand.class, WorkerCommand.class, ChaosCommand.class,
            CommandLine.HelpCommand.class})
public final class BatonCli implements Runnable {

    /** The command ran and did what it promised. */
    public static final int EXIT_OK = 0;
    /** The command ran but failed (the demo saw no leader, a child process died, ...). */
    public static final int EXIT_FAILURE = 1;
    /** The user asked for something that cannot work: bad flags, invalid configuration, unreachable backend. */
    public static final int EXIT_USAGE = 2;

    private static final Logger log = LoggerFactory.getLogger(BatonCli.class);

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Parses and runs {@code args}, and returns the process exit code. */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new BatonCli());
        cli.setParameterExceptionHandler(BatonCli::onUsageError);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> onExecutionError(e, commandLine));
        return cli.execute(args);
    }

    /** {@code baton} without a command is a usage error, reported like any other. */
    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "missing command: use 'baton node', 'baton demo', 'baton worker' or 'baton chaos' (see 'baton --help')");
    }

    private static int onUsageError(CommandLine.ParameterException e, String[] args) {
        printError(e.getCommandLine().getErr(), e.getMessage());
        return EXIT_USAGE;
    }

    private static int onExecutionError(Exception e, CommandLine commandLine) {
        if (e instanceof CliError error) {
            printError(commandLine.getErr(), error.getMessage());
            return error.exitCode();
        }
        // Not the user's fault: keep the stack trace, in the log on stderr, for whoever debugs it.
        log.error("baton {} failed unexpectedly", commandLine.getCommandName(), e);
        printError(commandLine.getErr(), "unexpected failure: " + oneLine(String.valueOf(e)));
        return EXIT_FAILURE;
    }

    /** Prints {@code baton: error: <message>} as one line. */
    static void printError(PrintWriter err, String message) {
        err.println("baton: error: " + oneLine(message));
        err.flush();
    }

    /** A message folded onto one line, so an error never spills a multi-line cause into the terminal. */
    static String oneLine(String message) {
        return message == null ? "(no message)" : message.strip().replaceAll("\\s*\\R\\s*", "; ");
    }

    /** The version from the jar's manifest when packaged, else "development". */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = BatonCli.class.getPackage().getImplementationVersion();
            return new String[] {"baton " + (version != null ? version : "(development build)")};
        }
    }
}
