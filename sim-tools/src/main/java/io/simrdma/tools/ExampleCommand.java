package io.simrdma.tools;

import io.simrdma.examples.Example;
import io.simrdma.examples.Examples;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code simrdma example NAME}: runs one of the annotated examples (docs/tutorial.md walks through them). */
@Command(
        name = "example",
        mixinStandardHelpOptions = true,
        description = {
            "Runs an annotated example on a deterministic fabric; without a NAME, lists them.",
            "The tutorial (docs/tutorial.md) walks through each with its output."
        })
final class ExampleCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "NAME", description = "the example to run")
    String name;

    @Option(names = "--pcap", paramLabel = "FILE", description = "write the example's packets to FILE (pcapng, RoCEv2)")
    Path pcap;

    @Option(names = "--ladder", description = "print the packet ladder of the run")
    boolean ladder;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (name == null) {
            for (Example e : Examples.all()) {
                out.printf("  %-16s %s%n", e.name(), e.summary());
            }
            out.flush();
            return 0;
        }
        Example e = Examples.named(name)
                .orElseThrow(() -> new ParameterException(
                        spec.commandLine(), "no example called " + name + "; 'simrdma example' lists them"));
        try {
            e.run(new Example.Context(out, pcap, ladder));
            out.flush();
            return 0;
        } catch (Example.ExampleFailure f) {
            out.flush();
            spec.commandLine().getErr().println("example " + name + " FAILED: " + f.getMessage());
            return 1;
        }
    }
}
