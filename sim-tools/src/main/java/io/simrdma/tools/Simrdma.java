package io.simrdma.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code simrdma} command line. Run {@code simrdma help} for the commands.
 */
@Command(name = "simrdma", mixinStandardHelpOptions = true, versionProvider = Simrdma.Version.class,
        description = "A simulated RDMA fabric and DAT 1.2 provider.",
        subcommands = {DemoCommand.class, NodeCommand.class, PingCommand.class, ExampleCommand.class,
            CommandLine.HelpCommand.class})
public final class Simrdma {

    /** Runs the command line; the process exits with the command's exit code. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line, for tests and embedding. */
    static CommandLine commandLine() {
        return new CommandLine(new Simrdma()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Simrdma.class.getPackage().getImplementationVersion();
            return new String[] {"simrdma " + (v == null ? "(development build)" : v)};
        }
    }
}
