package io.simrdma.conformance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScratchSurveyTest {
    @Test
    void survey() throws Exception {
        long first = Long.getLong("s.first", 1);
        int n = Integer.getInteger("s.n", 1000);
        int actions = Integer.getInteger("s.actions", 200);
        boolean shrink = Boolean.getBoolean("s.shrink");
        List<String> out = new ArrayList<>();
        String list = System.getProperty("s.list");
        List<long[]> ranges = new ArrayList<>();
        if (list != null) {
            for (String x : list.split(",")) {
                ranges.add(new long[] {Long.parseLong(x), 1});
            }
        } else {
            ranges.add(new long[] {first, n});
        }
        for (long[] rg : ranges) {
        SuiteReport r = ConformanceSuite.run(SimProviderConformanceTest.sim("sim:sv{run}/ia{ia}?seed={seed}")
                .firstSeed(rg[0])
                .seeds((int) rg[1])
                .actions(actions)
                .shrink(shrink)
                .stopAfter(100000)
                .build());
        for (Failure f : r.failures()) {
            out.add(f.summary());
            if (shrink) {
                out.add(f.replayTest());
            }
        }
        for (Failure f : r.deviations()) {
            out.add("KNOWN " + f.summary());
        }
        }
        Files.write(Path.of(System.getProperty("s.out", "/tmp/confdto-survey.txt")), out);
    }
}
