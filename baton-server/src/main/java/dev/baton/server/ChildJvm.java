package dev.baton.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line that runs {@code baton} in a child JVM: the same {@code java} executable and the same class path
 * as this process. Inside the fat jar the class path is the jar itself; under a test runner it is the test class
 * path, so {@code baton demo}, {@code baton chaos} and the process tests start children the same way without knowing
 * where they run. Public for the chaos harness's package only; not an API.
 */
public final class ChildJvm {

    /**
     * Child nodes are small and short-lived and several share two cores with their parent: the serial collector and
     * the client compiler start them faster and lighter, and neither affects the election's timing.
     */
    private static final List<String> JVM_OPTIONS = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private ChildJvm() {
    }

    /** {@code java <options> -cp <this class path> dev.baton.server.BatonCli <args>}. */
    public static List<String> batonCommand(List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(JVM_OPTIONS);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(BatonCli.class.getName());
        command.addAll(args);
        return command;
    }

    private static String javaExecutable() {
        return ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
