package io.simrdma.tools;

import io.simrdma.tools.perf.PerfCommand;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The {@code simrdma} command line. Run {@code simrdma help} for the commands.
 *
 * <p>Exit codes ({@link CliOutput}): 0 success, 1 failure, 2 usage error; 130 or 143 after Ctrl-C
 * or SIGTERM. A mistake a person can fix (a bad option value, a port in use, a refused connection)
 * prints one line naming it, without a stack trace.
 *
 * <p>Thread safety: not thread-safe; a JVM runs one command at a time (the verbosity options set
 * the process's logging).
 */
@Command(
        name = "simrdma",
        mixinStandardHelpOptions = true,
        versionProvider = Simrdma.Version.class,
        description = "A simulated RDMA fabric and DAT 1.2 provider.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success",
            "1:failure: the command could not do its work (the message says why)",
            "2:usage error: an unknown option or a bad value (the message names it)",
            "130, 143:stopped by Ctrl-C or SIGTERM, after disconnecting cleanly"
        },
        subcommands = {
            DemoCommand.class,
            NodeCommand.class,
            PingCommand.class,
            PerfCommand.class,
            KeygenCommand.class,
            ConformCommand.class,
            TcpBenchCommand.class,
            ExampleCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Simrdma {

    @Mixin
    CliOutput.Verbosity verbosity;

    /** Runs the command line; the process exits with the command's exit code. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line, for tests and embedding. */
    static CommandLine commandLine() {
        CliOutput.reset();
        CommandLine cl = new CommandLine(new Simrdma())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setUsageHelpWidth(100)
                .setUsageHelpAutoWidth(true);
        cl.setExecutionStrategy(parseResult -> {
            CliOutput.configureLogging();
            return new CommandLine.RunLast().execute(parseResult);
        });
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> CliOutput.failed(commandLine, e));
        cl.setParameterExceptionHandler(Simrdma::usageError);
        return cl;
    }

    /** A command line that could not be understood: one line naming the problem, a hint, exit code 2. */
    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println(CliOutput.qualifiedName(cl) + ": " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Try '" + CliOutput.qualifiedName(cl) + " --help' for the options.");
        err.flush();
        return CliOutput.USAGE;
    }

    /** The version of the build: the jar manifest's Implementation-Version, else the version the build wrote into the classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "simrdma " + version(),
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
            };
        }

        static String version() {
            String v = Simrdma.class.getPackage().getImplementationVersion();
            if (v != null) {
                return v;
            }
            try (InputStream in = Simrdma.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    Properties p = new Properties();
                    p.load(in);
                    String built = p.getProperty("version");
                    if (built != null && !built.startsWith("${")) {
                        return built;
                    }
                }
            } catch (IOException e) {
                // fall through
            }
            return "(version unknown: not built by Maven)";
        }
    }
}
