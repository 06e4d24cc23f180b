package io.simrdma.fabric.view;

import java.util.Arrays;
import java.util.List;

/**
 * Draws a {@link RunRecording} as a text sequence diagram, like Wireshark's flow graph: one
 * column per QP (and per DAT endpoint), time down the left, an arrow per packet with its opcode and
 * PSN, {@code X} where a packet was lost, and state changes and completions on their column.
 * <pre>
 *    time (us)            a QP17                      b QP17
 *                             |                           |
 *         0.000               |---WRITE First #2946277--->|
 *         0.000               |--WRITE Middle #2946279--X |   dropped by fault rule "DROP, max 1"
 *         1.260               |&lt;---NAK PSN seq #2946279----|
 *         4.786        (wc RDMA_WRITE)                    |
 * </pre>
 * What happened to a packet besides (the rule that dropped it, a retransmission, a duplicate the
 * responder answered again) follows the line.
 *
 * <p>Thread safety: stateless.
 */
public final class Ladder {

    /** Width of a column, in characters. */
    public static final int COLUMN = 30;

    private static final int TIME = 14;

    private Ladder() {}

    /** The diagram of {@code run}, a line per event, with a title and a header of column names. */
    public static String render(RunRecording run) {
        List<RunRecording.Lane> lanes = run.lanes();
        List<RunRecording.Event> events = run.events();
        StringBuilder out = new StringBuilder();
        out.append("-- ")
                .append(run.title())
                .append(" (")
                .append(run.packets())
                .append(" packets, ")
                .append(run.drops())
                .append(" dropped; ")
                .append(run.virtualClock() ? "virtual time" : "time since start")
                .append(") --\n");
        int width = TIME + lanes.size() * COLUMN;
        char[] line = blank(width, lanes);
        String head = "time (us)";
        put(line, TIME - 2 - head.length(), head);
        for (int i = 0; i < lanes.size(); i++) {
            String t = lanes.get(i).title();
            if (t.length() > COLUMN - 2) {
                t = t.substring(0, COLUMN - 2);
            }
            Arrays.fill(line, TIME + i * COLUMN, TIME + (i + 1) * COLUMN, ' ');
            put(line, center(i) - t.length() / 2, t);
        }
        out.append(trim(line)).append('\n');
        out.append(trim(blank(width, lanes))).append('\n');
        for (RunRecording.Event e : events) {
            line = blank(width, lanes);
            String time = String.format("%12.3f", e.time() / 1000.0);
            put(line, 0, time);
            int from = lanes.indexOf(e.from());
            int to = lanes.indexOf(e.to());
            String suffix = "";
            switch (e.kind()) {
                case PACKET:
                    arrow(line, from, to, e);
                    if (!e.notes().isEmpty()) {
                        suffix = "   " + String.join("; ", e.notes());
                    }
                    break;
                case COMPLETION:
                    mark(line, from, "(" + e.label() + ")");
                    break;
                case STATE:
                    // an endpoint's state names are long: the state it enters is enough on its column
                    mark(line, from, "[" + e.label().substring(e.label().indexOf("->") + 2) + "]");
                    break;
                default:
                    mark(line, from, "[" + e.label() + "]");
                    break;
            }
            out.append(trim(line)).append(suffix).append('\n');
        }
        return out.toString();
    }

    private static void arrow(char[] line, int from, int to, RunRecording.Event e) {
        if (from == to) {
            mark(line, from, "<" + e.label() + ">");
            return;
        }
        int a = center(from);
        int b = center(to);
        int dir = b > a ? 1 : -1;
        // the shaft runs from next to the sender's line to next to the receiver's, or to the X of a loss
        int end = e.dropped() ? b - 3 * dir : b - dir;
        int lo = Math.min(a + dir, end);
        int hi = Math.max(a + dir, end);
        for (int i = lo; i <= hi; i++) {
            line[i] = '-';
        }
        if (e.dropped()) {
            line[end] = 'X';
        } else {
            line[end] = dir > 0 ? '>' : '<';
        }
        String label = e.label() + (e.duplicate() ? " dup" : "");
        int room = hi - lo - 5;
        if (label.length() > room) {
            label = label.substring(0, Math.max(0, room));
        }
        put(line, lo + 3 + (room - label.length()) / 2, label);
    }

    private static void mark(char[] line, int lane, String text) {
        int room = COLUMN + COLUMN / 2;
        if (text.length() > room) {
            text = text.substring(0, room - 1) + (text.charAt(0) == '(' ? ")" : "]");
        }
        int at = Math.max(TIME, center(lane) - text.length() / 2);
        put(line, at, text);
    }

    private static char[] blank(int width, List<RunRecording.Lane> lanes) {
        char[] line = new char[width];
        Arrays.fill(line, ' ');
        for (int i = 0; i < lanes.size(); i++) {
            line[center(i)] = '|';
        }
        return line;
    }

    private static int center(int lane) {
        return TIME + lane * COLUMN + COLUMN / 2;
    }

    private static void put(char[] line, int at, String s) {
        for (int i = 0; i < s.length() && at + i < line.length; i++) {
            if (at + i >= 0) {
                line[at + i] = s.charAt(i);
            }
        }
    }

    private static String trim(char[] line) {
        int n = line.length;
        while (n > 0 && line[n - 1] == ' ') {
            n--;
        }
        return new String(line, 0, n);
    }
}
