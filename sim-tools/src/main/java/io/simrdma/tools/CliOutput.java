package io.simrdma.tools;

import io.simrdma.dat.DatException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * How the command line talks to a person: verbosity ({@code -v}, {@code -vv}, {@code -q}), log
 * lines with timestamps on stderr (slf4j-simple, configured before the first logger exists),
 * one-line errors without stack traces for mistakes a person can fix, and the exit codes.
 *
 * <p>Thread safety: the verbosity is set once while the command line is parsed, read afterwards.
 */
final class CliOutput {

    /** Exit code of a command that did its work. */
    static final int OK = 0;
    /** Exit code of a command that failed (a refused connection, a wrong echo, a port in use, ...). */
    static final int FAILED = 1;
    /** Exit code of a command line that could not be understood (an unknown option, a bad value). */
    static final int USAGE = 2;

    private static volatile int verbosity;

    private CliOutput() {}

    /** -v / -vv / -q, mixed into every command. */
    static final class Verbosity {
        @Option(
                names = {"-v", "--verbose"},
                description = "more output: -v logs what the fabric does (info), -vv debug")
        void verbose(boolean[] flags) {
            verbosity = flags.length;
        }

        @Option(
                names = {"-q", "--quiet"},
                description = "only the result and errors: no progress, no connection lines, no warnings")
        void quiet(boolean q) {
            if (q) {
                verbosity = -1;
            }
        }
    }

    /** Back to normal verbosity, before a command line is parsed. */
    static void reset() {
        verbosity = 0;
    }

    /** -1 quiet, 0 normal, 1 verbose, 2 debug. */
    static int verbosity() {
        return verbosity;
    }

    static boolean quiet() {
        return verbosity < 0;
    }

    /** Configures slf4j-simple for the verbosity; effective only before the first logger is made. */
    static void configureLogging() {
        String level = verbosity < 0 ? "error" : verbosity == 0 ? "warn" : verbosity == 1 ? "info" : "debug";
        setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", level);
        setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
        setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        setIfAbsent("org.slf4j.simpleLogger.showThreadName", verbosity >= 2 ? "true" : "false");
        setIfAbsent("org.slf4j.simpleLogger.showShortLogName", "true");
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** True for a failure a person can act on from its message: no stack trace. */
    static boolean isUserError(Throwable e) {
        return e instanceof DatException
                || e instanceof IllegalArgumentException
                || e instanceof UncheckedIOException
                || e instanceof CommandFailure;
    }

    /** The one line that says what went wrong. */
    static String describe(Throwable e) {
        if (e instanceof DatException d) {
            String detail = d.detail();
            return (detail != null && !detail.isEmpty() ? detail : d.getMessage()) + " ["
                    + d.type().cName()
                    + (d.subtype().cName().equals("DAT_NO_SUBTYPE")
                            ? ""
                            : ", " + d.subtype().cName()) + "]";
        }
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    /** Prints a failure of a command: one line for a user error, the stack trace only with -v for anything else. */
    static int failed(CommandLine cl, Throwable e) {
        PrintWriter err = cl.getErr();
        String who = qualifiedName(cl);
        if (isUserError(e)) {
            err.println(who + ": " + describe(e));
            if (verbosity > 0) {
                e.printStackTrace(err);
            }
        } else {
            err.println(who + ": internal error: " + e);
            if (verbosity > 0) {
                e.printStackTrace(err);
            } else {
                err.println("(run again with -v for the stack trace, and report it)");
            }
        }
        err.flush();
        return FAILED;
    }

    /** "simrdma ping", "simrdma keygen node". */
    static String qualifiedName(CommandLine cl) {
        return cl.getCommandSpec().qualifiedName();
    }

    /** A command could not do its work; the message says why and what to do. */
    static final class CommandFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CommandFailure(String message) {
            super(message);
        }
    }
}
