package io.simrdma.tools.perf;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Prints a run as perftest does (a header with the settings, one line per size with perftest's
 * columns), with the same-run baseline and the ratio to it beside each figure; or as JSON
 * ({@code --json}). Bandwidth is in MB/sec of 2^20 bytes, as perftest's; latency in microseconds.
 *
 * <p>Thread safety: not thread-safe.
 */
final class Report {

    private static final String LINE = "-".repeat(120);
    private static final double MB = 1 << 20;

    private final PerfSettings settings;
    private final PrintWriter out;
    private final boolean json;
    private final List<Figure> figures = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private boolean headerPrinted;

    Report(PerfSettings settings, PrintWriter out, boolean json) {
        this.settings = settings;
        this.out = out;
        this.json = json;
    }

    /** A line for the header (both outputs), such as where the fabric runs. */
    void note(String line) {
        notes.add(line);
    }

    /** Adds a figure; the table prints it at once. */
    void add(Figure f) {
        figures.add(f);
        if (json) {
            return;
        }
        if (!headerPrinted) {
            header(f);
            headerPrinted = true;
        }
        out.println(row(f));
        out.flush();
    }

    List<Figure> figures() {
        return figures;
    }

    /** Ends the report: the table's closing line, or the whole JSON document. */
    void finish() {
        if (json) {
            out.println(json());
        } else if (headerPrinted) {
            out.println(LINE);
        }
        out.flush();
    }

    private void header(Figure first) {
        PerfSettings s = settings;
        out.println(LINE);
        out.println("                    " + title(s.test()));
        out.printf(" Layer           : %s%n", s.layer().name().toLowerCase(Locale.ROOT));
        out.printf(" Fabric          : %s%n", s.mode().name().toLowerCase(Locale.ROOT));
        out.printf(" Number of qps   : %d%n", s.qps());
        out.println(" Connection type : RC");
        out.printf(" TX depth        : %d%n", s.txDepth());
        if (s.test().verb() == PerfTest.Verb.SEND) {
            out.printf(" RX depth        : %d%n", s.rxDepth());
        }
        if (!s.test().isLatency()) {
            out.printf(" CQ Moderation   : %d%n", s.cqMod());
            out.printf(" Post List       : %d%n", s.postList());
        }
        out.println(" Mtu             : 4096[B]");
        out.printf(" Completions     : %s%n", s.events() ? "events (sleeps until they arrive)" : "busy polling");
        out.printf(" Max inline data : %d[B]%n", s.inline());
        out.printf(
                " Warm-up         : %d iterations per size%s, not counted%n",
                s.warmup(),
                s.warmup() > 0 && s.warmupMillis() > 0 ? ", repeated for at least " + s.warmupMillis() + " ms" : "");
        out.println(" Baseline        : " + first.baseline());
        for (String n : notes) {
            out.println(" " + n);
        }
        out.println(LINE);
        String layer = s.layer() == PerfSettings.Layer.BOTH ? " layer " : "";
        String vs = s.layer() == PerfSettings.Layer.BOTH ? "  dat/verbs" : "";
        if (first instanceof Figure.Bw) {
            out.println(layer + " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
                    + " | base BW[MB/sec]  ratio | base rate[Mpps]  ratio" + vs);
        } else {
            out.println(layer + " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
                    + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] | base t_typical[usec]    ratio"
                    + vs);
        }
    }

    private String row(Figure f) {
        String layer = settings.layer() == PerfSettings.Layer.BOTH
                ? String.format(" %-6s", f.layer().name().toLowerCase(Locale.ROOT))
                : "";
        if (f instanceof Figure.Bw b) {
            String vs = "";
            Figure.Bw verbs = verbsTwin(b, Figure.Bw.class);
            if (verbs != null) {
                vs = String.format("  %9.3f", b.messagesPerSecond() / verbs.messagesPerSecond());
            }
            return layer
                    + String.format(
                            Locale.ROOT,
                            " %-10d %-10d       %-14.2f     %-14.2f       %-10.6f" + " | %-15.2f %6s | %-15.6f %6s",
                            b.size(),
                            b.iterations(),
                            b.peakBytesPerSecond() / MB,
                            b.bytesPerSecond() / MB,
                            b.messagesPerSecond() / 1e6,
                            b.baseBytesPerSecond() / MB,
                            ratio(b.bwRatio()),
                            b.baseMessagesPerSecond() / 1e6,
                            ratio(b.rateRatio()))
                    + vs;
        }
        Figure.Lat l = (Figure.Lat) f;
        Histogram h = l.samples();
        String vs = "";
        Figure.Lat verbs = verbsTwin(l, Figure.Lat.class);
        if (verbs != null) {
            vs = String.format(Locale.ROOT, "  %9.3f", l.typical() / verbs.typical());
        }
        return layer
                + String.format(
                        Locale.ROOT,
                        " %-7d %-10d    %-11.2f    %-11.2f  %-11.2f        %-11.2f    %-11.2f"
                                + "     %-11.2f            %-11.2f          | %-17.3f    %7.1f",
                        l.size(),
                        l.iterations(),
                        h.getMinValue() / 1000.0 / l.rttFactor(),
                        h.getMaxValue() / 1000.0 / l.rttFactor(),
                        l.typical(),
                        h.getMean() / 1000.0 / l.rttFactor(),
                        h.getStdDeviation() / 1000.0 / l.rttFactor(),
                        l.micros(h, 99),
                        l.micros(h, 99.9),
                        l.baseTypical(),
                        l.ratio())
                + vs;
    }

    /** A ratio to three decimals, or to six when it is below 0.001, so that a tiny one does not read as 0. */
    private static String ratio(double r) {
        return String.format(Locale.ROOT, r > 0 && r < 0.001 ? "%.6f" : "%.3f", r);
    }

    /** For a DAT figure of a run of both layers: the verbs figure of the same size. */
    private <T extends Figure> T verbsTwin(T f, Class<T> type) {
        if (f.layer() != PerfSettings.Layer.DAT || settings.layer() != PerfSettings.Layer.BOTH) {
            return null;
        }
        for (Figure g : figures) {
            if (g.layer() == PerfSettings.Layer.VERBS && g.size() == f.size() && type.isInstance(g)) {
                return type.cast(g);
            }
        }
        return null;
    }

    private static String title(PerfTest t) {
        String verb = switch (t.verb()) {
            case WRITE -> "RDMA_Write";
            case READ -> "RDMA_Read";
            case SEND -> "Send";
            case ATOMIC -> "Atomic FETCH_AND_ADD";
        };
        return verb + (t.isLatency() ? " Latency Test" : " BW Test");
    }

    // ------------------------------------------------------------------ JSON

    /** The run as one JSON object: settings, notes, and a result per figure. */
    String json() {
        StringBuilder b = new StringBuilder("{\n");
        PerfSettings s = settings;
        b.append("  \"test\": ").append(str(s.test().label())).append(",\n");
        b.append("  \"settings\": {\"layer\": ")
                .append(str(lower(s.layer())))
                .append(", \"mode\": ")
                .append(str(lower(s.mode())))
                .append(", \"qps\": ")
                .append(s.qps())
                .append(", \"txDepth\": ")
                .append(s.txDepth())
                .append(", \"rxDepth\": ")
                .append(s.rxDepth())
                .append(", \"cqMod\": ")
                .append(s.cqMod())
                .append(", \"postList\": ")
                .append(s.postList())
                .append(", \"inline\": ")
                .append(s.inline())
                .append(", \"iterations\": ")
                .append(s.iterations())
                .append(", \"warmup\": ")
                .append(s.warmup())
                .append(", \"warmupMs\": ")
                .append(s.warmupMillis())
                .append(", \"seed\": ")
                .append(s.seed())
                .append(", \"events\": ")
                .append(s.events())
                .append("},\n");
        b.append("  \"notes\": [");
        for (int i = 0; i < notes.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(str(notes.get(i)));
        }
        b.append("],\n  \"results\": [");
        for (int i = 0; i < figures.size(); i++) {
            b.append(i == 0 ? "\n" : ",\n").append("    ").append(json(figures.get(i)));
        }
        return b.append("\n  ]\n}").toString();
    }

    private String json(Figure f) {
        StringBuilder b = new StringBuilder("{\"layer\": ")
                .append(str(lower(f.layer())))
                .append(", \"bytes\": ")
                .append(f.size())
                .append(", \"iterations\": ")
                .append(f.iterations())
                .append(", \"baseline\": ")
                .append(str(f.baseline()));
        if (f instanceof Figure.Bw w) {
            b.append(", \"bwPeakMBps\": ")
                    .append(num(w.peakBytesPerSecond() / MB))
                    .append(", \"bwAverageMBps\": ")
                    .append(num(w.bytesPerSecond() / MB))
                    .append(", \"msgRateMpps\": ")
                    .append(num(w.messagesPerSecond() / 1e6))
                    .append(", \"baseBwMBps\": ")
                    .append(num(w.baseBytesPerSecond() / MB))
                    .append(", \"bwRatio\": ")
                    .append(num(w.bwRatio()))
                    .append(", \"baseMsgRateMpps\": ")
                    .append(num(w.baseMessagesPerSecond() / 1e6))
                    .append(", \"msgRateRatio\": ")
                    .append(num(w.rateRatio()));
            Figure.Bw v = verbsTwin(w, Figure.Bw.class);
            if (v != null) {
                b.append(", \"vsVerbs\": ").append(num(w.messagesPerSecond() / v.messagesPerSecond()));
            }
        } else {
            Figure.Lat l = (Figure.Lat) f;
            Histogram h = l.samples();
            b.append(", \"rttFactor\": ")
                    .append(l.rttFactor())
                    .append(", \"tMinUs\": ")
                    .append(num(h.getMinValue() / 1000.0 / l.rttFactor()))
                    .append(", \"tMaxUs\": ")
                    .append(num(h.getMaxValue() / 1000.0 / l.rttFactor()))
                    .append(", \"tTypicalUs\": ")
                    .append(num(l.typical()))
                    .append(", \"tAvgUs\": ")
                    .append(num(h.getMean() / 1000.0 / l.rttFactor()))
                    .append(", \"tStdevUs\": ")
                    .append(num(h.getStdDeviation() / 1000.0 / l.rttFactor()))
                    .append(", \"p99Us\": ")
                    .append(num(l.micros(h, 99)))
                    .append(", \"p999Us\": ")
                    .append(num(l.micros(h, 99.9)))
                    .append(", \"baseTypicalUs\": ")
                    .append(num(l.baseTypical()))
                    .append(", \"ratio\": ")
                    .append(num(l.ratio()));
            Figure.Lat v = verbsTwin(l, Figure.Lat.class);
            if (v != null) {
                b.append(", \"vsVerbs\": ").append(num(l.typical() / v.typical()));
            }
        }
        return b.append('}').toString();
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    private static String num(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return "null";
        }
        return String.format(Locale.ROOT, "%.6g", d);
    }

    /** A JSON string literal. */
    static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
