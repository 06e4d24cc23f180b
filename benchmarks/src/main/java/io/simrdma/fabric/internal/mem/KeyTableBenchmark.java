package io.simrdma.fabric.internal.mem;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The memory key lookup the engine makes on every access ({@link KeyTable#lookup}: L_Key or R_Key to
 * its MR or MW), over a table of {@code keys} installed keys, in a random order fixed by a seed.
 *
 * <p>White-box: it sits in the package of the class it measures, as a unit test would, because the
 * key table is not API. Like the tests, it is not shipped: the benchmarks module is built only with
 * -Pbenchmarks.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class KeyTableBenchmark {

    @Param({"16", "65536"})
    public int keys;

    private final KeyTable table = new KeyTable(7);
    private int[] order;
    private int next;

    @Setup
    public void setUp() {
        int[] installed = new int[keys];
        for (int i = 0; i < keys; i++) {
            installed[i] = table.reserve();
            table.install(installed[i], Integer.valueOf(i));
        }
        SplittableRandom r = new SplittableRandom(1);
        order = new int[4096];
        for (int i = 0; i < order.length; i++) {
            order[i] = installed[r.nextInt(keys)];
        }
    }

    @Benchmark
    public Object lookup() {
        int k = order[next++ & (order.length - 1)];
        return table.lookup(k);
    }
}
