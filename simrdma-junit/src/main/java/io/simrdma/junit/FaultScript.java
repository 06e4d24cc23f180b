package io.simrdma.junit;

import io.simrdma.fabric.PacketMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One scripted fault: what to do (drop, delay, duplicate, corrupt), to which packets (a
 * {@link PacketKind}, every one or only the n-th), where (every link, both directions of the link
 * between two devices, or one direction), when (a window after the script is applied) and how often
 * (a probability). {@link Faults#add} compiles it onto sim-fabric's {@code FaultRule} and
 * {@code PacketMatcher} for the links of the test's fabric, in-process or TCP alike.
 *
 * <p>In Java:
 * <pre>{@code
 * FaultScript.drop(PacketKind.READ_RESPONSE).nth(3)                            // the 3rd READ response
 * FaultScript.partition("a", "b").window(2, 40, TimeUnit.MILLISECONDS)        // a and b cut off, 2 to 40 ms
 * FaultScript.loss(0.05)                                                      // 5% loss both ways
 * FaultScript.delay(50, TimeUnit.MICROSECONDS)                                // 50 us more latency
 * FaultScript.drop(PacketKind.ACK).from("b", "a")                             // b's ACKs to a only
 * }</pre>
 * The same in text ({@link #parse}), one fault per line:
 * <pre>
 *   drop 3rd READ_RESPONSE
 *   partition a-b 2ms..40ms
 *   loss 5% both
 *   delay 50us
 *   drop acks b-&gt;a
 * </pre>
 * Grammar: {@code drop [Nth] [KIND] [SCOPE] [WINDOW] [P%]}, {@code loss P% [KIND] [SCOPE] [WINDOW]},
 * {@code delay DURATION [KIND] [SCOPE] [WINDOW] [P%]}, {@code duplicate P% ...}, {@code corrupt P% ...},
 * {@code partition X-Y WINDOW}. KIND is a {@link PacketKind} (any case, plural allowed); SCOPE is
 * {@code both} (the default: every link, both ways), {@code X-Y} (the link between devices X and Y,
 * both ways) or {@code X->Y} (packets X sends to Y); WINDOW is {@code T1..T2} and a DURATION is a
 * number with a unit ({@code ns}, {@code us}, {@code ms}, {@code s}), measured on the fabric's clock
 * from the moment the script is applied; Nth is {@code 1st}, {@code 2nd}, {@code 3rd}, {@code 4th}...,
 * counted over every packet of that kind the script's links carry.
 *
 * <p>Immutable; thread-safe.
 */
public final class FaultScript {

    /** What a script does to the packets it selects. */
    public enum Action {
        DROP,
        DELAY,
        DUPLICATE,
        CORRUPT
    }

    private final Action action;
    private final PacketKind kind;
    private final long nth;
    private final double probability;
    private final long delayNanos;
    private final String x;
    private final String y;
    private final boolean directed;
    private final long fromNanos;
    private final long untilNanos;
    private final String text;

    private FaultScript(
            Action action,
            PacketKind kind,
            long nth,
            double probability,
            long delayNanos,
            String x,
            String y,
            boolean directed,
            long fromNanos,
            long untilNanos,
            String text) {
        this.action = action;
        this.kind = kind;
        this.nth = nth;
        this.probability = probability;
        this.delayNanos = delayNanos;
        this.x = x;
        this.y = y;
        this.directed = directed;
        this.fromNanos = fromNanos;
        this.untilNanos = untilNanos;
        this.text = text;
    }

    /** Drops every packet of {@code kind} (narrow it with {@link #nth}, {@link #probability}...). */
    public static FaultScript drop(PacketKind kind) {
        return new FaultScript(
                Action.DROP,
                Objects.requireNonNull(kind, "kind"),
                0,
                1.0,
                0,
                null,
                null,
                false,
                0,
                Long.MAX_VALUE,
                null);
    }

    /** Drops each packet with probability {@code p} (0 &lt; p &lt;= 1). */
    public static FaultScript loss(double p) {
        return drop(PacketKind.ANY).probability(p);
    }

    /** Adds {@code amount} of latency to every packet. */
    public static FaultScript delay(long amount, TimeUnit unit) {
        long nanos = unit.toNanos(amount);
        if (nanos <= 0) {
            throw new IllegalArgumentException("delay must be positive: " + amount + " " + unit);
        }
        return new FaultScript(Action.DELAY, PacketKind.ANY, 0, 1.0, nanos, null, null, false, 0, Long.MAX_VALUE, null);
    }

    /** Sends each packet twice with probability {@code p}. */
    public static FaultScript duplicate(double p) {
        return new FaultScript(Action.DUPLICATE, PacketKind.ANY, 0, 1.0, 0, null, null, false, 0, Long.MAX_VALUE, null)
                .probability(p);
    }

    /** Corrupts each packet (its ICRC fails, the receiver drops it) with probability {@code p}. */
    public static FaultScript corrupt(double p) {
        return new FaultScript(Action.CORRUPT, PacketKind.ANY, 0, 1.0, 0, null, null, false, 0, Long.MAX_VALUE, null)
                .probability(p);
    }

    /** Drops every packet between devices {@code a} and {@code b}, both ways (give it a {@link #window}). */
    public static FaultScript partition(String a, String b) {
        return drop(PacketKind.ANY).between(a, b);
    }

    /** Only packets of {@code k}. */
    public FaultScript kind(PacketKind k) {
        return new FaultScript(
                action,
                Objects.requireNonNull(k, "kind"),
                nth,
                probability,
                delayNanos,
                x,
                y,
                directed,
                fromNanos,
                untilNanos,
                null);
    }

    /** Only the {@code n}-th packet of the kind (from 1), counted over the script's links. */
    public FaultScript nth(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("nth counts from 1: " + n);
        }
        return new FaultScript(action, kind, n, probability, delayNanos, x, y, directed, fromNanos, untilNanos, null);
    }

    /** Each selected packet with probability {@code p} (0 &lt; p &lt;= 1). */
    public FaultScript probability(double p) {
        if (!(p > 0 && p <= 1)) {
            throw new IllegalArgumentException("probability must be in (0, 1]: " + p);
        }
        return new FaultScript(action, kind, nth, p, delayNanos, x, y, directed, fromNanos, untilNanos, null);
    }

    /** Only on the link between devices {@code a} and {@code b}, both ways. */
    public FaultScript between(String a, String b) {
        return new FaultScript(
                action,
                kind,
                nth,
                probability,
                delayNanos,
                Objects.requireNonNull(a, "a"),
                Objects.requireNonNull(b, "b"),
                false,
                fromNanos,
                untilNanos,
                null);
    }

    /** Only packets device {@code from} sends to device {@code to}. */
    public FaultScript from(String from, String to) {
        return new FaultScript(
                action,
                kind,
                nth,
                probability,
                delayNanos,
                Objects.requireNonNull(from, "from"),
                Objects.requireNonNull(to, "to"),
                true,
                fromNanos,
                untilNanos,
                null);
    }

    /** Only from {@code start} to {@code end} after the script is applied, on the fabric's clock. */
    public FaultScript window(long start, long end, TimeUnit unit) {
        long s = unit.toNanos(start);
        long e = unit.toNanos(end);
        if (s < 0 || e <= s) {
            throw new IllegalArgumentException("window must have 0 <= start < end: " + start + ".." + end + " " + unit);
        }
        return new FaultScript(action, kind, nth, probability, delayNanos, x, y, directed, s, e, null);
    }

    public Action action() {
        return action;
    }

    public PacketKind kind() {
        return kind;
    }

    /** The n-th packet selected, or 0 for every one. */
    public long nth() {
        return nth;
    }

    public double probability() {
        return probability;
    }

    public long delayNanos() {
        return delayNanos;
    }

    /** The first device of the scope, or null for every link. */
    public String deviceX() {
        return x;
    }

    /** The second device of the scope, or null for every link. */
    public String deviceY() {
        return y;
    }

    /** True if only packets {@link #deviceX()} sends to {@link #deviceY()} are selected. */
    public boolean directed() {
        return directed;
    }

    /** Start of the window after the script is applied, in nanoseconds. */
    public long windowStartNanos() {
        return fromNanos;
    }

    /** End of the window after the script is applied, in nanoseconds; Long.MAX_VALUE for none. */
    public long windowEndNanos() {
        return untilNanos;
    }

    /** True if the script has a window. */
    public boolean hasWindow() {
        return untilNanos != Long.MAX_VALUE;
    }

    /** The packets this script selects: its kind, and the n-th of them if it has an nth (a counter: one per rule). */
    PacketMatcher newMatcher() {
        return nth > 0 ? PacketMatcher.nth(nth, kind.matcher()) : kind.matcher();
    }

    // ------------------------------------------------------------------ text form

    /**
     * Parses one fault in the text form described in {@link FaultScript}.
     *
     * @throws IllegalArgumentException naming the word that could not be read and what was expected there
     */
    public static FaultScript parse(String line) {
        Objects.requireNonNull(line, "script");
        String[] w = line.trim().split("\\s+");
        if (w.length == 0 || w[0].isEmpty()) {
            throw new IllegalArgumentException("empty fault script");
        }
        int i = 1;
        FaultScript s;
        switch (w[0].toLowerCase(Locale.ROOT)) {
            case "drop" -> {
                s = drop(PacketKind.ANY);
                if (i < w.length && isOrdinal(w[i])) {
                    s = s.nth(ordinal(line, w[i]));
                    i++;
                }
            }
            case "loss" -> {
                s = loss(percent(line, need(line, w, i, "a percentage such as 5%")));
                i++;
            }
            case "duplicate" -> {
                s = duplicate(percent(line, need(line, w, i, "a percentage such as 1%")));
                i++;
            }
            case "corrupt" -> {
                s = corrupt(percent(line, need(line, w, i, "a percentage such as 1%")));
                i++;
            }
            case "delay" -> {
                s = delay(duration(line, need(line, w, i, "a duration such as 50us")), TimeUnit.NANOSECONDS);
                i++;
            }
            case "partition" -> {
                String link = need(line, w, i, "a link such as a-b");
                String[] ends = link.split("-", -1);
                if (ends.length != 2 || ends[0].isEmpty() || ends[1].isEmpty() || link.contains("->")) {
                    throw bad(line, link, "a link such as a-b");
                }
                s = partition(ends[0], ends[1]);
                i++;
                need(line, w, i, "a window such as 2ms..40ms");
            }
            default -> throw bad(line, w[0], "drop, loss, delay, duplicate, corrupt or partition");
        }
        for (; i < w.length; i++) {
            String word = w[i];
            PacketKind k = PacketKind.ofWord(word);
            if (k != null) {
                s = s.kind(k);
            } else if (word.equalsIgnoreCase("both") || word.equalsIgnoreCase("on") || word.equalsIgnoreCase("of")) {
                continue;
            } else if (word.contains("..")) {
                String[] t = word.split("\\.\\.", -1);
                if (t.length != 2) {
                    throw bad(line, word, "a window such as 2ms..40ms");
                }
                s = s.window(duration(line, t[0]), duration(line, t[1]), TimeUnit.NANOSECONDS);
            } else if (word.endsWith("%")) {
                s = s.probability(percent(line, word));
            } else if (word.contains("->")) {
                String[] ends = word.split("->", -1);
                if (ends.length != 2 || ends[0].isEmpty() || ends[1].isEmpty()) {
                    throw bad(line, word, "a direction such as a->b");
                }
                s = s.from(ends[0], ends[1]);
            } else if (word.indexOf('-') > 0 && word.indexOf('-') < word.length() - 1) {
                String[] ends = word.split("-", 2);
                s = s.between(ends[0], ends[1]);
            } else {
                throw bad(
                        line,
                        word,
                        "a packet kind (" + java.util.Arrays.toString(PacketKind.values())
                                + "), both, a link a-b, a direction a->b, a window 2ms..40ms or a percentage 5%");
            }
        }
        return new FaultScript(
                s.action,
                s.kind,
                s.nth,
                s.probability,
                s.delayNanos,
                s.x,
                s.y,
                s.directed,
                s.fromNanos,
                s.untilNanos,
                line.trim());
    }

    private static String need(String line, String[] w, int i, String expected) {
        if (i >= w.length) {
            throw new IllegalArgumentException(
                    "fault script '" + line.trim() + "': expected " + expected + " at the end");
        }
        return w[i];
    }

    private static IllegalArgumentException bad(String line, String word, String expected) {
        return new IllegalArgumentException(
                "fault script '" + line.trim() + "': cannot read '" + word + "'; expected " + expected);
    }

    private static boolean isOrdinal(String word) {
        return word.matches("(?i)\\d+(st|nd|rd|th)");
    }

    private static long ordinal(String line, String word) {
        long n = Long.parseLong(word.substring(0, word.length() - 2));
        if (n < 1) {
            throw bad(line, word, "an ordinal from 1st");
        }
        return n;
    }

    private static double percent(String line, String word) {
        if (!word.endsWith("%")) {
            throw bad(line, word, "a percentage such as 5%");
        }
        try {
            double p = Double.parseDouble(word.substring(0, word.length() - 1)) / 100.0;
            if (!(p > 0 && p <= 1)) {
                throw bad(line, word, "a percentage above 0% and at most 100%");
            }
            return p;
        } catch (NumberFormatException e) {
            throw bad(line, word, "a percentage such as 5%");
        }
    }

    /** "50us" in nanoseconds. */
    private static long duration(String line, String word) {
        String lower = word.toLowerCase(Locale.ROOT);
        String[][] units = {{"ns", "1"}, {"us", "1000"}, {"ms", "1000000"}, {"s", "1000000000"}};
        for (String[] u : units) {
            if (lower.endsWith(u[0])) {
                String number = lower.substring(0, lower.length() - u[0].length());
                try {
                    double v = Double.parseDouble(number);
                    if (v < 0) {
                        break;
                    }
                    return Math.round(v * Long.parseLong(u[1]));
                } catch (NumberFormatException e) {
                    break;
                }
            }
        }
        throw bad(line, word, "a duration with a unit: ns, us, ms or s (such as 50us)");
    }

    /** The script as written ({@link #parse}) or as a builder would write it. */
    @Override
    public String toString() {
        if (text != null) {
            return text;
        }
        StringBuilder b = new StringBuilder(action.name().toLowerCase(Locale.ROOT));
        if (action == Action.DELAY) {
            b.append(' ').append(delayNanos).append("ns");
        }
        if (nth > 0) {
            b.append(' ')
                    .append(nth)
                    .append(
                            nth % 10 == 1 && nth % 100 != 11
                                    ? "st"
                                    : nth % 10 == 2 && nth % 100 != 12
                                            ? "nd"
                                            : nth % 10 == 3 && nth % 100 != 13 ? "rd" : "th");
        }
        b.append(' ').append(kind);
        if (x != null) {
            b.append(' ').append(x).append(directed ? "->" : "-").append(y);
        }
        if (hasWindow()) {
            b.append(' ').append(fromNanos).append("ns..").append(untilNanos).append("ns");
        }
        if (probability < 1) {
            b.append(' ').append(probability * 100).append('%');
        }
        return b.toString();
    }

    /** Several scripts, one per non-blank line (lines starting with # are comments). */
    public static List<FaultScript> parseLines(String text) {
        List<FaultScript> out = new ArrayList<>();
        for (String l : text.split("\\R")) {
            if (!l.isBlank() && !l.trim().startsWith("#")) {
                out.add(parse(l));
            }
        }
        return out;
    }
}
