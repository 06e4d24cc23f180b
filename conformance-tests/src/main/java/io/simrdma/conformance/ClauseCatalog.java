package io.simrdma.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every clause a check can cite: the 277 return-code clauses of the 73 DAT 1.2 man pages
 * ({@code return-clauses.tsv}) and the rows of the endpoint state-machine digest
 * ({@code state-rows.tsv}), both read from this package's resources, plus the clauses the Java API
 * cannot produce or a provider legitimately never exercises, each with its reason
 * ({@code clause-notes.tsv}). {@code ClauseCatalogTest} checks the resources against
 * {@code shared/spec} when it is present.
 *
 * <p>Thread safety: immutable after construction; {@link #get()} is safe from any thread.
 */
public final class ClauseCatalog {

    private static final ClauseCatalog INSTANCE = new ClauseCatalog();

    private final Map<String, Clause> clauses = new LinkedHashMap<>();
    private final Map<String, String> notes = new LinkedHashMap<>();

    private ClauseCatalog() {
        for (String[] f : read("return-clauses.tsv", 4)) {
            add(new Clause(f[0], Clause.Kind.RETURN_CODE, f[1], f[2], f[3]));
        }
        for (String[] f : read("state-rows.tsv", 3)) {
            add(new Clause(f[0], Clause.Kind.STATE_ROW, f[0].substring(0, f[0].indexOf('#')), f[1], f[2]));
        }
        for (String[] f : read("clause-notes.tsv", 2)) {
            if (!clauses.containsKey(f[0])) {
                throw new IllegalStateException("clause-notes.tsv names an unknown clause " + f[0]);
            }
            notes.put(f[0], f[1]);
        }
    }

    /** The catalog. */
    public static ClauseCatalog get() {
        return INSTANCE;
    }

    private void add(Clause c) {
        if (clauses.put(c.id(), c) != null) {
            throw new IllegalStateException("two clauses with id " + c.id());
        }
    }

    /** Every clause, return-code clauses first (page order), then state-machine rows (digest order). */
    public List<Clause> all() {
        return Collections.unmodifiableList(new ArrayList<>(clauses.values()));
    }

    /** Whether {@code id} names a clause. */
    public boolean contains(String id) {
        return clauses.containsKey(id);
    }

    /**
     * The clause {@code id}.
     *
     * @throws IllegalArgumentException if there is none (a check citing a clause that does not exist
     *         is a mistake in the model)
     */
    public Clause clause(String id) {
        Clause c = clauses.get(id);
        if (c == null) {
            throw new IllegalArgumentException("no clause " + id);
        }
        return c;
    }

    /**
     * Why a clause is not produced through the Java API or by a conforming provider in a run, or null
     * if it should be covered.
     */
    public String note(String id) {
        return notes.get(id);
    }

    private static List<String[]> read(String resource, int fields) {
        List<String[]> rows = new ArrayList<>();
        try (InputStream in = ClauseCatalog.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource + " is missing");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t", -1);
                if (f.length != fields) {
                    throw new IllegalStateException(resource + ": expected " + fields + " fields: " + line);
                }
                rows.add(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }
}
