package io.simrdma.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes the traceability matrix of a run: {@code matrix.csv} and {@code matrix.md}, one row per
 * return-code clause of every DAT man page and one per row of the EP state-machine digest, with the
 * checks that cover it, how often they held and failed, and for a clause no check can reach, why.
 * The first line of {@code matrix.md} is the coverage line, {@code covered X of Y clauses (Z%); N more listed
 * with their reason (W% covered or listed)}; a section after the table lists every clause no check reached,
 * with its reason or as not covered.
 *
 * <p>Thread safety: stateless.
 */
public final class MatrixWriter {

    private MatrixWriter() {}

    /** A clause's status in the matrix. */
    enum Status {
        PASSED,
        FAILED,
        /** No check ran against it; the catalog gives the reason (see {@link ClauseCatalog#note}). */
        LISTED,
        NOT_COVERED
    }

    static Status status(Coverage c, Clause clause) {
        Map<String, Coverage.Tally> checks = c.checks(clause.id());
        if (checks.isEmpty()) {
            return ClauseCatalog.get().note(clause.id()) != null ? Status.LISTED : Status.NOT_COVERED;
        }
        for (Coverage.Tally t : checks.values()) {
            if (t.failed() > 0) {
                return Status.FAILED;
            }
        }
        return Status.PASSED;
    }

    /**
     * The coverage line: {@code covered X of Y clauses (Z%); N more listed with their reason (W% covered or
     * listed)}. X counts the clauses a check ran against in this run; N the clauses no check ran against
     * that the catalog lists with the reason the Java API cannot produce them or a conforming provider
     * never has to ({@link ClauseCatalog#note}); the clauses neither covered nor listed are the gap.
     */
    public static String coverageLine(Coverage c) {
        List<Clause> all = ClauseCatalog.get().all();
        int covered = 0;
        int listed = 0;
        for (Clause cl : all) {
            if (c.covered(cl.id())) {
                covered++;
            } else if (ClauseCatalog.get().note(cl.id()) != null) {
                listed++;
            }
        }
        return String.format(
                Locale.ROOT,
                "covered %d of %d clauses (%.1f%%); %d more listed with their reason (%.1f%% covered or listed)",
                covered,
                all.size(),
                100.0 * covered / all.size(),
                listed,
                100.0 * (covered + listed) / all.size());
    }

    /** Counts per status, for the summary. */
    static int[] counts(Coverage c) {
        int[] n = new int[Status.values().length];
        for (Clause cl : ClauseCatalog.get().all()) {
            n[status(c, cl).ordinal()]++;
        }
        return n;
    }

    /** Writes matrix.csv and matrix.md into {@code dir}; returns the markdown. */
    public static String write(Coverage c, Path dir, String header) {
        String md = markdown(c, header);
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("matrix.md"), md, StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("matrix.csv"), csv(c), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return md;
    }

    static String csv(Coverage c) {
        StringBuilder sb =
                new StringBuilder("clause,kind,page,title,status,checks,passed,failed,provider_choice,note,text\n");
        for (Clause cl : ClauseCatalog.get().all()) {
            Map<String, Coverage.Tally> checks = c.checks(cl.id());
            long passed = 0;
            long failed = 0;
            List<String> rules = new ArrayList<>();
            boolean choice = false;
            for (Map.Entry<String, Coverage.Tally> e : checks.entrySet()) {
                passed += e.getValue().passed();
                failed += e.getValue().failed();
                rules.add(e.getKey());
                choice |= e.getValue().choice() != null;
            }
            String note = ClauseCatalog.get().note(cl.id());
            sb.append(q(cl.id()))
                    .append(',')
                    .append(cl.kind())
                    .append(',')
                    .append(q(cl.page()))
                    .append(',')
                    .append(q(cl.title()))
                    .append(',')
                    .append(status(c, cl))
                    .append(',')
                    .append(q(String.join(" | ", rules)))
                    .append(',')
                    .append(passed)
                    .append(',')
                    .append(failed)
                    .append(',')
                    .append(choice)
                    .append(',')
                    .append(q(note == null ? "" : note))
                    .append(',')
                    .append(q(cl.text()))
                    .append('\n');
        }
        return sb.toString();
    }

    private static String q(String s) {
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }

    static String markdown(Coverage c, String header) {
        StringBuilder sb = new StringBuilder();
        sb.append(coverageLine(c)).append('\n').append('\n');
        int[] n = counts(c);
        sb.append(header).append('\n').append('\n');
        sb.append("Clauses whose checks all held: ")
                .append(n[Status.PASSED.ordinal()])
                .append("; with a failed check: ")
                .append(n[Status.FAILED.ordinal()])
                .append(
                        "; not reached, listed with the reason (the Java API cannot produce it, or a conforming provider "
                                + "never has to): ")
                .append(n[Status.LISTED.ordinal()])
                .append("; not covered: ")
                .append(n[Status.NOT_COVERED.ordinal()])
                .append(".\n\n");
        sb.append("A check marked *choice* follows a recorded reading of a SILENT or CONFLICT case "
                + "(shared/spec/ep-state-machine.md section 7, or the choice named): another provider is not failed "
                + "on it unless the run is strict.\n\n");
        sb.append("| clause | status | checks (passed/failed) | text |\n|---|---|---|---|\n");
        for (Clause cl : ClauseCatalog.get().all()) {
            Map<String, Coverage.Tally> checks = c.checks(cl.id());
            StringBuilder cs = new StringBuilder();
            for (Map.Entry<String, Coverage.Tally> e : checks.entrySet()) {
                if (cs.length() > 0) {
                    cs.append("<br>");
                }
                cs.append(cell(e.getKey()))
                        .append(" (")
                        .append(e.getValue().passed())
                        .append('/')
                        .append(e.getValue().failed())
                        .append(')');
                if (e.getValue().choice() != null) {
                    cs.append(" *choice*");
                }
            }
            String note = ClauseCatalog.get().note(cl.id());
            if (checks.isEmpty() && note != null) {
                cs.append("listed: ").append(cell(note));
            }
            String text = cl.kind() == Clause.Kind.RETURN_CODE ? cl.text() : cl.title() + " — " + cl.text();
            sb.append("| ")
                    .append(cl.id())
                    .append(" | ")
                    .append(status(c, cl).name().toLowerCase(Locale.ROOT).replace('_', ' '))
                    .append(" | ")
                    .append(cs)
                    .append(" | ")
                    .append(cell(text))
                    .append(" |\n");
        }
        sb.append("\n## Clauses no check reached\n\n");
        sb.append("Listed with their reason (the Java API cannot produce them, or a conforming provider never has "
                + "to):\n\n");
        for (Clause cl : ClauseCatalog.get().all()) {
            if (status(c, cl) == Status.LISTED) {
                sb.append("- ")
                        .append(cl.id())
                        .append(": ")
                        .append(ClauseCatalog.get().note(cl.id()))
                        .append('\n');
            }
        }
        sb.append("\nNot covered (no check ran against them in this run, and no reason is listed):\n\n");
        int gaps = 0;
        for (Clause cl : ClauseCatalog.get().all()) {
            if (status(c, cl) == Status.NOT_COVERED) {
                sb.append("- ")
                        .append(cl.id())
                        .append(": ")
                        .append(cell(cl.text()))
                        .append('\n');
                gaps++;
            }
        }
        if (gaps == 0) {
            sb.append("- none\n");
        }
        return sb.toString();
    }

    private static String cell(String s) {
        String t = s.replace("|", "\\|").replace("\n", " ");
        return t.length() > 300 ? t.substring(0, 297) + "..." : t;
    }
}
