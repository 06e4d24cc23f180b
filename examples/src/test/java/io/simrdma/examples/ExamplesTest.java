package io.simrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every example runs to its end (its own checks pass) and prints the same output twice (deterministic). */
class ExamplesTest {

    static List<String> names() {
        return Examples.all().stream().map(Example::name).collect(Collectors.toList());
    }

    static String run(String name) {
        StringWriter text = new StringWriter();
        Examples.named(name).orElseThrow().run(new Example.Context(new PrintWriter(text, true), null, false));
        return text.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    @DisplayName("the example passes its own checks and prints the same output on every run")
    void shouldRunToTheEndAndRepeatItsOutputWhenRunTwice(String name) {
        String first = run(name);
        assertEquals(first, run(name), name + ": same seed, same output");
    }
}
